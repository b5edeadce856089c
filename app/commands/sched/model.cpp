// SPDX-License-Identifier: MIT
// `bkctl sched --model FILE.gguf`: the memory plan of a model over the devices (lib/probe/
// model_plan.h does the planning), rendered as text or JSON bk.plan/v1.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/units.h"
#include "bk/version.h"
#include "commands/sched/cli.h"
#include "exit_codes.h"
#include "output/table.h"
#include "output/wrap.h"
#include "probe/model_plan.h"
#include "registry_within.h"

namespace bkctl {
namespace {

// llama.cpp's own default context before it learned to take the model's.
constexpr int64_t kDefaultModelContext = 4096;
constexpr int kDefaultModelBatch = 512;

void check_model_args(const SchedArgs& a) {
  const auto refuse = [](bool given, const char* option, const char* instead) {
    if (given)
      usage_error(fmt::format("--model plans a GGUF model; {} does not apply to it{}", option, instead));
  };
  refuse(!a.graph.empty() || !a.graph_file.empty(), "--graph / --graph-file", "");
  refuse(a.run, "--run", " (bkctl bench --model FILE --check computes a model with its weights)");
  refuse(!a.pins.empty(), "--pin", " (place layers with --weights-on, --weights-split or --fit)");
  if (a.fit && (!a.weights_on.empty() || !a.weights_split.empty()))
    usage_error("--fit chooses where the layers go; give it without --weights-on and --weights-split");
  if (a.ctx < 0)
    usage_error(fmt::format("--ctx must be 0 (the model's) or a number of tokens, got {}", a.ctx));
}

size_t parse_margin(const std::string& text) {
  const std::optional<size_t> size = bk::parse_size(text);
  if (!size) usage_error(fmt::format("--margin '{}' is not a size (e.g. 512MiB, 1GiB, 0)", text));
  return *size;
}

bk::LlamaShape model_shape(const SchedArgs& a, const bk::LlamaParams& p) {
  bk::LlamaShape s;
  s.ctx = a.ctx > 0 ? a.ctx : std::min(p.train_ctx, kDefaultModelContext);
  s.tokens = a.batch_set ? a.model.batch : std::min<int64_t>(kDefaultModelBatch, s.ctx);
  if (s.tokens < 1 || s.tokens > s.ctx)
    usage_error(fmt::format("--batch {} must be 1 to the context, --ctx {}", s.tokens, s.ctx));
  s.past = s.ctx - s.tokens;
  return s;
}

// Without --fit: every layer on --weights-on, split by --weights-split, or on the first device.
std::vector<int> placement(const SchedArgs& a, const bk::GgufFile& file, const bk::LlamaParams& p,
                           const std::vector<std::unique_ptr<bk::Backend>>& backends) {
  const size_t units = static_cast<size_t>(p.layers) + 1;
  if (!a.weights_split.empty())
    return bk::units_by_fractions(file, p, parse_fractions(a.weights_split, backends.size()));
  const size_t home = a.weights_on.empty() ? 0 : device_index(backends, a.weights_on, "--weights-on");
  return std::vector<int>(units, static_cast<int>(home));
}

const char* placement_mode(const SchedArgs& a) {
  if (a.fit) return "fit";
  if (!a.weights_split.empty()) return "split";
  return a.weights_on.empty() ? "first_device" : "on";
}

// "0-39, output" from the units a device holds.
std::string units_text(const std::vector<int>& units, const bk::LlamaParams& p) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < units.size();) {
    size_t j = i;
    while (j + 1 < units.size() && units[j + 1] == units[j] + 1 && units[j + 1] < bk::llama_output_layer(p))
      ++j;
    if (units[i] == bk::llama_output_layer(p)) {
      parts.emplace_back("output");
    } else {
      parts.push_back(i == j ? std::to_string(units[i]) : fmt::format("{}-{}", units[i], units[j]));
    }
    i = j + 1;
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string header_text(const bk::ModelPlan& plan, const bk::GgufFile& file, const SchedArgs& a) {
  const bk::LlamaParams& p = plan.params;
  const bk::LlamaShape& s = plan.shape;
  return fmt::format(
      "model: {} ({}): {} layers, embedding {}, feed-forward {}, {} heads, {} KV heads of {}, vocab {}, "
      "trained for {} tokens\n"
      "file: {} (GGUF v{}, {}{}, {} of weights)\n"
      "plan: a batch of {} tokens after {} cached (context {}), KV cache {}; layers {} with a {} margin "
      "per device; planned in {:.2f} s\n",
      p.name, p.arch, p.layers, p.embd, p.ff, p.heads, p.kv_heads, p.head_dim, p.vocab, p.train_ctx,
      file.path(), file.version(), bk::count_of(file.tensors().size(), "tensor"),
      file.has_data() ? "" : ", header only", bk::format_bytes(file.tensor_bytes()), s.tokens, s.past, s.ctx,
      bk::dtype_name(s.kv_type), a.fit ? "fitted (--fit)" : "as placed", bk::format_bytes(plan.margin),
      plan.seconds);
}

std::string devices_table(const bk::ModelPlan& plan, const TermStyle& style) {
  Table table({{"device"},
               {"layers", Align::left, true},
               {"weights", Align::right},
               {"KV cache", Align::right},
               {"compute", Align::right},
               {"needed", Align::right},
               {"free", Align::right},
               {"result"}});
  for (const bk::PlanDevice& d : plan.devices) {
    std::string units = units_text(d.units, plan.params);
    if (d.token_embedding) units = units == "-" ? "embedding" : "embedding, " + units;
    const bool ok = d.fits(plan.margin);
    const std::string result =
        ok ? "fits" : fmt::format("{} short", bk::format_bytes(d.needed() + plan.margin - d.free));
    table.add_row({d.name, units, bk::format_bytes(d.weights), bk::format_bytes(d.kv_cache),
                   bk::format_bytes(d.compute), bk::format_bytes(d.needed()), bk::format_bytes(d.free),
                   TableCell(result, ok ? Tone::good : Tone::bad)});
  }
  return table.render(style);
}

std::string plan_text(const bk::ModelPlan& plan, const bk::GgufFile& file, const SchedArgs& a,
                      const TermStyle& style) {
  std::string out = wrap_text(header_text(plan, file, a), style.width) + "\n" + devices_table(plan, style);
  out += wrap_text(fmt::format("total: weights {}, KV cache {} (2 x {} layers x {} positions x {} KV heads x "
                               "{} x {} bytes): {}\n",
                               bk::format_bytes(plan.weight_bytes()), bk::format_bytes(plan.kv_cache_bytes()),
                               plan.params.layers, plan.shape.ctx, plan.params.kv_heads, plan.params.head_dim,
                               bk::dtype_size(plan.shape.kv_type), plan.fits ? "fits" : "does not fit"),
                   style.width);
  out += "\n" + placement_text(plan.report, a.verbose, style);
  if (!plan.advice.empty()) {
    out += "\nwhat would fit:\n";
    for (const std::string& line : plan.advice) out += wrap_text("  " + line + "\n", style.width);
  }
  return out;
}

ojson model_json(const bk::ModelPlan& plan, const bk::GgufFile& file) {
  const bk::LlamaParams& p = plan.params;
  return {{"file", file.path()},
          {"gguf_version", file.version()},
          {"header_only", !file.has_data()},
          {"tensors", file.tensors().size()},
          {"name", p.name},
          {"arch", p.arch},
          {"layers", p.layers},
          {"embedding", p.embd},
          {"feed_forward", p.ff},
          {"heads", p.heads},
          {"kv_heads", p.kv_heads},
          {"head_dim", p.head_dim},
          {"vocab", p.vocab},
          {"train_context", p.train_ctx},
          {"weights_bytes", file.tensor_bytes()}};
}

ojson request_json(const bk::ModelPlan& plan, const SchedArgs& a) {
  return {{"batch", plan.shape.tokens},  {"context", plan.shape.ctx},
          {"cached", plan.shape.past},   {"kv_type", bk::dtype_name(plan.shape.kv_type)},
          {"margin_bytes", plan.margin}, {"placement", placement_mode(a)},
          {"offload", !a.no_offload},    {"copies", a.copies}};
}

ojson devices_json(const bk::ModelPlan& plan, const std::vector<std::unique_ptr<bk::Backend>>& backends) {
  ojson out = ojson::array();
  for (size_t i = 0; i < plan.devices.size(); ++i) {
    const bk::PlanDevice& d = plan.devices[i];
    const bk::Device& dev = backends[i]->device();
    ojson layers = ojson::array();
    for (int u : d.units) {
      if (u != bk::llama_output_layer(plan.params)) layers.push_back(u);
    }
    const bool has_output =
        std::find(d.units.begin(), d.units.end(), bk::llama_output_layer(plan.params)) != d.units.end();
    out.push_back({{"index", i},
                   {"name", d.name},
                   {"description", dev.description()},
                   {"type", bk::device_type_name(dev.type())},
                   {"simulated", dev.is_simulated()},
                   {"layers", layers},
                   {"output_layer", has_output},
                   {"token_embedding", d.token_embedding},
                   {"weights_bytes", d.weights},
                   {"kv_cache_bytes", d.kv_cache},
                   {"compute_bytes", d.compute},
                   {"needed_bytes", d.needed()},
                   {"free_bytes", d.free},
                   {"total_bytes", d.total},
                   // free - needed - margin: what is left beyond the margin, negative when short
                   {"headroom_bytes", static_cast<int64_t>(d.free) - static_cast<int64_t>(d.needed()) -
                                          static_cast<int64_t>(plan.margin)},
                   {"fits", d.fits(plan.margin)}});
  }
  return out;
}

ojson plan_document(const bk::ModelPlan& plan, const bk::GgufFile& file, const SchedArgs& a,
                    const std::vector<std::unique_ptr<bk::Backend>>& backends) {
  ojson doc = json_document("bk.plan/v1");
  doc["bkctl_version"] = std::string(bk::kVersion);
  doc["status"] = plan.fits ? "fits" : "does_not_fit";
  doc["model"] = model_json(plan, file);
  doc["request"] = request_json(plan, a);
  doc["devices"] = devices_json(plan, backends);
  doc["totals"] = {{"weights_bytes", plan.weight_bytes()},
                   {"kv_cache_bytes", plan.kv_cache_bytes()},
                   {"plan_seconds", plan.seconds}};
  doc["advice"] = plan.advice;
  // The scheduler's placement, with exactly the fields of bk.sched/v2 (the library renders them).
  doc["schedule"] = ojson::parse(bk::sched_report_json(plan.report));
  return doc;
}

}  // namespace

int run_model_plan(const SchedArgs& args) {
  check_model_args(args);
  const bk::GgufFile file = bk::GgufFile::open(args.model_file);
  const bk::LlamaParams params = bk::llama_params(file);
  const bk::Registry& registry = registry_within(args.timeout);
  std::vector<std::unique_ptr<bk::Backend>> backends;
  for (bk::Device* d : pick_devices(args.devices, registry)) backends.push_back(d->init_backend());
  bk::PlanRequest request;
  request.shape = model_shape(args, params);
  request.margin = parse_margin(args.margin);
  request.fit = args.fit;
  if (!args.fit) request.unit_backend = placement(args, file, params, backends);
  request.sched = bk::SchedOptions{!args.no_offload, args.copies};
  std::vector<bk::Backend*> list;
  for (const auto& b : backends) list.push_back(b.get());
  const bk::ModelPlan plan = bk::plan_model(file, request, list);
  if (args.json) {
    print_json(plan_document(plan, file, args, backends));
  } else {
    std::fputs(plan_text(plan, file, args, term_style_for(stdout)).c_str(), stdout);
  }
  if (plan.fits) return kExitOk;
  std::fprintf(stderr, "bkctl: sched: %s does not fit on %s with a %s margin; the plan says what would\n",
               file.path().c_str(), args.devices.empty() ? "these devices" : args.devices.c_str(),
               bk::format_bytes(plan.margin).c_str());
  return kExitOutOfMemory;
}

}  // namespace bkctl

# The plugin's compute kernels: every shaders/*.comp compiled to SPIR-V by glslc at build time
# (some several times with different defines), then embedded into one generated source,
# vk_shader_blobs.cpp, that the plugin compiles. Include from lib/devices/vulkan/CMakeLists.txt;
# sets BK_VULKAN_SHADER_SOURCE to the generated file.
find_program(BK_GLSLC glslc REQUIRED)

set(_dir ${CMAKE_CURRENT_SOURCE_DIR}/shaders)
set(_out ${CMAKE_CURRENT_BINARY_DIR}/shaders)
file(MAKE_DIRECTORY ${_out})
file(GLOB _includes CONFIGURE_DEPENDS ${_dir}/*.glsl)

# The lane kernel's register block (rows per invocation, columns); vk_ops.cpp mirrors it.
set(_lanes "-DROWS=4 -DCOLS=8")
# The subgroup-shuffle lane kernel's block (activation reads are cheap there, so more columns
# per weight read pay: 4 x 16 beat 4 x 8 and 2 x 16 on lavapipe, docs/performance.md);
# vk_ops.cpp mirrors it too.
set(_lanes_sg "-DROWS=4 -DCOLS=16 -DSUBGROUP")
# kernel name | source | defines
set(_kernels
  "add|add.comp|" "mul|mul.comp|" "scale|scale.comp|" "silu|silu.comp|" "gelu|gelu.comp|"
  "rms_norm|rms_norm.comp|" "soft_max|soft_max.comp|" "rope|rope.comp|" "get_rows|get_rows.comp|"
  "cpy|cpy.comp|" "copy|copy.comp|"
  "add_flat|add.comp|-DFLAT4" "mul_flat|mul.comp|-DFLAT4" "scale_flat|scale.comp|-DFLAT4"
  "silu_flat|silu.comp|-DFLAT4" "gelu_flat|gelu.comp|-DFLAT4"
  "copy_flat|copy.comp|-DFLAT4"
  "add_texel|add.comp|-DFLAT4 -DTEXEL" "mul_texel|mul.comp|-DFLAT4 -DTEXEL"
  "scale_texel|scale.comp|-DFLAT4 -DTEXEL" "silu_texel|silu.comp|-DFLAT4 -DTEXEL"
  "gelu_texel|gelu.comp|-DFLAT4 -DTEXEL" "copy_texel|copy.comp|-DFLAT4 -DTEXEL"
  "mul_mat_f32|mul_mat.comp|" "mul_mat_f16|mul_mat.comp|-DW_F16" "mul_mat_bf16|mul_mat.comp|-DW_BF16"
  "mul_mat_lanes_f32|mul_mat_lanes.comp|${_lanes}" "mul_mat_lanes_f16|mul_mat_lanes.comp|${_lanes} -DW_F16"
  "mul_mat_lanes_bf16|mul_mat_lanes.comp|${_lanes} -DW_BF16"
  "mul_mat_lanes_sg_f32|mul_mat_lanes.comp|${_lanes_sg}"
  "mul_mat_lanes_sg_f16|mul_mat_lanes.comp|${_lanes_sg} -DW_F16"
  "mul_mat_lanes_sg_bf16|mul_mat_lanes.comp|${_lanes_sg} -DW_BF16"
  "mul_mat_lanes_sg_texel_f32|mul_mat_lanes.comp|${_lanes_sg} -DTEXEL"
  "mul_mat_lanes_sg_texel_f16|mul_mat_lanes.comp|${_lanes_sg} -DTEXEL -DW_F16"
  "mul_mat_lanes_sg_texel_bf16|mul_mat_lanes.comp|${_lanes_sg} -DTEXEL -DW_BF16"
  "peak_fma_f32|peak_fma.comp|" "peak_fma_f16|peak_fma.comp|-DPEAK_F16")
# Quantized weights: each kernel once per block layout (quant.glsl). The lane kernels' blocks are
# the float ones' (_lanes, _lanes_sg), which vk_ops.cpp assumes for both.
foreach(q q8_0 q4_0 q4_k q6_k)
  string(TOUPPER ${q} Q)
  list(APPEND _kernels
    "get_rows_${q}|get_rows.comp|-DQUANT -D${Q}" "mul_mat_${q}|mul_mat.comp|-DQUANT -D${Q}"
    "mul_vec_${q}|mul_vec_quant.comp|-D${Q}" "mul_mat_quant_${q}|mul_mat_quant.comp|${_lanes} -D${Q}"
    "mul_mat_quant_sg_${q}|mul_mat_quant.comp|${_lanes_sg} -D${Q}"
    "mul_mat_quant_sg_texel_${q}|mul_mat_quant.comp|${_lanes_sg} -DTEXEL -D${Q}")
endforeach()

set(_names "")
set(_spvs "")
foreach(k ${_kernels})
  string(REPLACE "|" ";" parts "${k}|")
  list(GET parts 0 name)
  list(GET parts 1 src)
  list(GET parts 2 defs)
  separate_arguments(defs UNIX_COMMAND "${defs}")
  set(spv ${_out}/${name}.spv)
  add_custom_command(OUTPUT ${spv}
    COMMAND ${BK_GLSLC} --target-env=vulkan1.1 -O -Werror -I ${_dir} ${defs} ${_dir}/${src} -o ${spv}
    DEPENDS ${_dir}/${src} ${_includes}
    COMMENT "glslc ${name}"
    VERBATIM)
  list(APPEND _names ${name})
  list(APPEND _spvs ${spv})
endforeach()

set(BK_VULKAN_SHADER_SOURCE ${_out}/vk_shader_blobs.cpp)
add_custom_command(OUTPUT ${BK_VULKAN_SHADER_SOURCE}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${BK_VULKAN_SHADER_SOURCE} "-DNAMES=${_names}" "-DFILES=${_spvs}"
          -P ${_dir}/embed_spirv.cmake
  DEPENDS ${_spvs} ${_dir}/embed_spirv.cmake
  COMMENT "Embedding ${CMAKE_CURRENT_LIST_DIR} SPIR-V kernels"
  VERBATIM)

# bash completion for bkctl: subcommands, options, device names and schema names. Everything is
# read from the bkctl being completed (its --help, `devices --json`, `schema --list`), so the
# completion cannot drift from the binary. Installed as
# <prefix>/share/bash-completion/completions/bkctl.

# The subcommands: the indented words under "Subcommands:" in `bkctl --help`.
_bkctl_commands() {
  "$1" --help 2>/dev/null | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'
}

# A command's options: the -x and --long words at the start of its help's option lines.
_bkctl_options() {
  "$1" "$2" --help 2>/dev/null | sed -n '/^Options:/,/^$/p' |
    grep -oE '^ +-[-A-Za-z0-9,]+' | tr ',' '\n' | tr -d ' '
}

# Device names: the "name" of each entry of the top-level "devices" array of `devices --json`.
_bkctl_devices() {
  "$1" devices --json 2>/dev/null |
    awk '/^  "devices": \[/ { inside = 1; next } inside && /^  \]/ { exit }
         inside && /^      "name": / { sub(/^      "name": "/, ""); sub(/",?$/, ""); print }'
}

# Schema names: the first column of `schema --list`, below its header and rule.
_bkctl_schemas() {
  "$1" schema --list 2>/dev/null | awk 'NR > 2 { print $1 }'
}

_bkctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local bkctl=${COMP_WORDS[0]} command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) command=${COMP_WORDS[i]}; break ;;
    esac
  done
  COMPREPLY=()

  if [[ -z $command ]]; then
    if [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W "--help --version --json" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(_bkctl_commands "$bkctl")" -- "$cur")
    fi
    return 0
  fi

  case $prev in
    --device | --devices | --weights-on)
      # Comma-separated lists complete their last item.
      local head="" item=$cur
      if [[ $cur == *,* ]]; then
        head=${cur%,*},
        item=${cur##*,}
      fi
      mapfile -t COMPREPLY < <(compgen -P "$head" -W "$(_bkctl_devices "$bkctl")" -- "$item")
      return 0
      ;;
    --junit | --plot | --graph-file | --expect | --baseline | --csv | --output)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return 0
      ;;
  esac

  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_bkctl_options "$bkctl" "$command")" -- "$cur")
  elif [[ $command == schema ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_bkctl_schemas "$bkctl")" -- "$cur")
  fi
  return 0
}

complete -o default -F _bkctl bkctl

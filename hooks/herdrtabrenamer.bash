# shellcheck shell=bash
# herdrtabrenamer hook for bash. Load it from ~/.bashrc with:
#   eval "$(herdrtabrenamer init bash)"
# When a command starts (PS0, or bash-preexec's preexec_functions) and at
# every prompt (PROMPT_COMMAND) it tells the herdrtabrenamer daemon to look
# at this pane, so the tab is renamed at once instead of at the next poll. It
# does nothing outside herdr or in scripts, and sets no DEBUG trap.
if [[ $- == *i* && -n "${HERDR_PANE_ID-}" ]]; then
  __herdrtabrenamer_bin='@HERDRTABRENAMER_BIN@'

  __herdrtabrenamer_nudge() {
    [[ -n "${HERDR_PANE_ID-}" ]] || return 0
    # The subshell keeps the job out of this shell's job table: no
    # "[1] 1234", no "Done". Output goes to /dev/null; nothing waits for it.
    ( \command "$__herdrtabrenamer_bin" nudge --quiet --when "$1" "$HERDR_PANE_ID" </dev/null >/dev/null 2>&1 & )
  }

  __herdrtabrenamer_precmd() {
    \builtin local ret=$?
    __herdrtabrenamer_nudge precmd
    # Later PROMPT_COMMAND entries (and prompts showing $?) see the status of
    # the user's command, not ours.
    \builtin return "$ret"
  }

  # A substring test, not a "loaded" flag: sourcing the rc file twice must
  # not add the hook twice, but a PROMPT_COMMAND reset in between must get
  # it back.
  if [[ "${PROMPT_COMMAND[*]-}" != *__herdrtabrenamer_precmd* ]]; then
    if [[ "$(\builtin declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]] &&
      ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
      # bash 5.1+ runs every element of an array PROMPT_COMMAND.
      PROMPT_COMMAND+=(__herdrtabrenamer_precmd)
    else
      # A string, or an array in bash before 5.1, which runs only element 0:
      # += appends to that element. A newline, not ";", so a value that
      # ends in ";" or "&" stays valid.
      # shellcheck disable=SC2128,SC2178
      if [[ -n "${PROMPT_COMMAND-}" ]]; then PROMPT_COMMAND+=$'\n'; fi
      # shellcheck disable=SC2178
      PROMPT_COMMAND+=__herdrtabrenamer_precmd
    fi
  fi

  # >>> preexec
  if [[ -n "${bash_preexec_imported-}${__bp_imported-}" ]] && \builtin declare -p preexec_functions >/dev/null 2>&1; then
    # bash-preexec owns the DEBUG trap; join it rather than race it. It
    # would also run our PS0 hook below, so that one is skipped.
    __herdrtabrenamer_preexec() {
      __herdrtabrenamer_nudge preexec
    }
    if [[ " ${preexec_functions[*]} " != *" __herdrtabrenamer_preexec "* ]]; then
      preexec_functions+=(__herdrtabrenamer_preexec)
    fi
  elif ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))); then
    # PS0 is expanded after a command line is read and before it runs. Its
    # $(...) waits for its pipe to close, so the background nudge must not
    # hold it: all of its output goes to /dev/null.
    if [[ "${PS0-}" != *__herdrtabrenamer_nudge* ]]; then
      # shellcheck disable=SC2016 # expanded by bash at each command, not now
      PS0="${PS0-}"'$(__herdrtabrenamer_nudge preexec >/dev/null 2>&1)'
    fi
  fi
  # <<< preexec
fi

# shellcheck shell=bash
# herdrtabrenamer hook for bash. Load it from ~/.bashrc with:
#   eval "$(herdrtabrenamer init bash)"
# When a command starts (PS0, or bash-preexec's preexec_functions) and at
# every prompt (PROMPT_COMMAND) it tells the herdrtabrenamer daemon to look
# at this pane, so the tab is renamed at once instead of at the next poll. It
# does nothing outside herdr or in scripts, and sets no DEBUG trap.
if [[ $- == *i* && -n "${HERDR_PANE_ID-}" ]]; then
  __herdrtabrenamer_bin='@HERDRTABRENAMER_BIN@'
  # For `herdrtabrenamer status`: which hooks, in which shell (a shell
  # started from this one inherits the variable but not the hooks).
  export HERDRTABRENAMER_HOOKS=bash:$$

  # One fork per nudge where it can be done safely, two where it cannot:
  # at every prompt of a busy shell each fork is a few milliseconds.

  # __herdrtabrenamer_spawn starts the nudge in the background and returns:
  # one fork. Output goes to /dev/null; nothing waits for it. Called bare only
  # inside PS0's $(...), a subshell that shows no job notice and whose $! is
  # thrown away.
  __herdrtabrenamer_spawn() {
    \command "$__herdrtabrenamer_bin" nudge --quiet --when "$1" "$HERDR_PANE_ID" </dev/null >/dev/null 2>&1 &
  }

  __herdrtabrenamer_nudge() {
    [[ -n "${HERDR_PANE_ID-}" ]] || return 0
    if [[ "${!-}" == "${__herdrtabrenamer_pid-}" ]]; then
      # $! is unset or our last nudge, so the user cannot lose a background
      # job's PID: start it from this shell, one fork. 2>/dev/null around
      # the group hides the "[1] 1234"; disown takes the job out of the
      # table, so no "Done" follows, and a `set -b` notice that would race
      # the disown goes to /dev/null too. disown "$!", not the current job:
      # if the fork failed, that cannot be a job of the user's.
      { __herdrtabrenamer_spawn "$1" && \builtin disown "$!"; } 2>/dev/null
      __herdrtabrenamer_pid=${!-}
    else
      # $! is the user's last background job (`sleep 60 &`, then
      # `kill $!` at the next prompt): a subshell starts the nudge so $!
      # stays theirs. One fork more, and no job in this shell's table.
      (__herdrtabrenamer_spawn "$1")
    fi
  }

  # "\#", the prompt's command number, counts the command lines this shell
  # ran; an empty Enter or a Ctrl-C at the prompt leaves it alone, and then
  # nothing changed in this pane and no nudge is needed. Empty until the
  # first prompt, so that one nudges. It needs ${var@P} (bash 4.4+); older
  # bash nudges at every prompt.
  __herdrtabrenamer_seen=

  __herdrtabrenamer_precmd() {
    \builtin local ret=$? n='\#'
    if ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))); then
      n=${n@P}
      if [[ "$n" != "$__herdrtabrenamer_seen" ]]; then
        __herdrtabrenamer_seen=$n
        __herdrtabrenamer_nudge precmd
      fi
    else
      __herdrtabrenamer_nudge precmd
    fi
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
    # PS0 is expanded after a command line is read and before it runs (not
    # for an empty line). Its $(...) is the only way it can run anything: a
    # fork for the subshell, one for the nudge. It waits for its pipe to
    # close, so the background nudge must not hold it: all of its output
    # goes to /dev/null. The test matches any of our names, so a PS0 left
    # by an older version of this hook is not doubled either.
    if [[ "${PS0-}" != *__herdrtabrenamer_* ]]; then
      # shellcheck disable=SC2016 # expanded by bash at each command, not now
      PS0="${PS0-}"'$([[ -z "${HERDR_PANE_ID-}" ]] || __herdrtabrenamer_spawn preexec >/dev/null 2>&1)'
    fi
  fi
  # <<< preexec
fi

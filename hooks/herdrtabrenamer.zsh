# herdrtabrenamer hook for zsh. Load it from ~/.zshrc with:
#   eval "$(herdrtabrenamer init zsh)"
# On every command start (preexec) and every prompt (precmd) it tells the
# herdrtabrenamer daemon to look at this pane, so the tab is renamed at once
# instead of at the next poll. It does nothing outside herdr or in scripts.
if [[ -o interactive && -n "${HERDR_PANE_ID-}" ]]; then
  typeset -g __herdrtabrenamer_bin='@HERDRTABRENAMER_BIN@'
  # For `herdrtabrenamer status`: which hooks, in which shell (a shell
  # started from this one inherits the variable but not the hooks).
  export HERDRTABRENAMER_HOOKS=zsh:$$

  # Keep a value from an earlier load: see __herdrtabrenamer_nudge.
  typeset -g __herdrtabrenamer_pid=${__herdrtabrenamer_pid:-0}

  __herdrtabrenamer_nudge() {
    # emulate -L: the user's options (e.g. no_monitor, err_exit) stay theirs.
    \builtin emulate -L zsh
    [[ -n "${HERDR_PANE_ID-}" ]] || return 0
    # &! starts the job disowned, so zsh prints no "[1] 1234" and no "done";
    # no output reaches the terminal and the prompt never waits on it.
    if [[ $! == $__herdrtabrenamer_pid ]]; then
      # $! is 0 or our last nudge, so the user cannot lose a background
      # job's PID: one fork, from this shell.
      \command "$__herdrtabrenamer_bin" nudge --quiet --when "$1" "$HERDR_PANE_ID" </dev/null >/dev/null 2>&1 &!
      __herdrtabrenamer_pid=$!
    else
      # $! is the user's last background job (`sleep 60 &`, then
      # `kill $!` at the next prompt): a subshell starts the nudge so $!
      # stays theirs, for one fork more.
      ( \command "$__herdrtabrenamer_bin" nudge --quiet --when "$1" "$HERDR_PANE_ID" </dev/null >/dev/null 2>&1 &! )
    fi
  }

  __herdrtabrenamer_precmd() {
    \builtin local ret=$?
    # >>> preexec
    # No command ran since the last prompt (an empty Enter, a Ctrl-C at the
    # prompt): nothing changed in this pane, so no nudge. Set to 1 at load,
    # so the first prompt nudges.
    if (( ! __herdrtabrenamer_ran )); then
      \builtin return $ret
    fi
    __herdrtabrenamer_ran=0
    # <<< preexec
    __herdrtabrenamer_nudge precmd
    \builtin return $ret
  }
  # >>> preexec
  typeset -gi __herdrtabrenamer_ran=1
  __herdrtabrenamer_preexec() {
    \builtin local ret=$?
    __herdrtabrenamer_ran=1
    __herdrtabrenamer_nudge preexec
    \builtin return $ret
  }
  # <<< preexec

  # add-zsh-hook skips a function that is already hooked, so sourcing the
  # rc file twice still gives one nudge per event.
  \builtin autoload -Uz add-zsh-hook
  add-zsh-hook precmd __herdrtabrenamer_precmd
  # >>> preexec
  add-zsh-hook preexec __herdrtabrenamer_preexec
  # <<< preexec
fi

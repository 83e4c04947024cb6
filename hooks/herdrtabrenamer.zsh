# herdrtabrenamer hook for zsh. Load it from ~/.zshrc with:
#   eval "$(herdrtabrenamer init zsh)"
# On every command start (preexec) and every prompt (precmd) it tells the
# herdrtabrenamer daemon to look at this pane, so the tab is renamed at once
# instead of at the next poll. It does nothing outside herdr or in scripts.
if [[ -o interactive && -n "${HERDR_PANE_ID-}" ]]; then
  typeset -g __herdrtabrenamer_bin='@HERDRTABRENAMER_BIN@'

  __herdrtabrenamer_nudge() {
    # emulate -L: the user's options (e.g. no_monitor, err_exit) stay theirs.
    \builtin emulate -L zsh
    [[ -n "${HERDR_PANE_ID-}" ]] || return 0
    # &! starts the job disowned, so zsh prints no "[1] 1234" and no "done";
    # no output reaches the terminal and the prompt never waits on it.
    \command "$__herdrtabrenamer_bin" nudge --quiet --when "$1" "$HERDR_PANE_ID" </dev/null >/dev/null 2>&1 &!
  }

  __herdrtabrenamer_precmd() {
    \builtin local ret=$?
    __herdrtabrenamer_nudge precmd
    \builtin return $ret
  }
  # >>> preexec
  __herdrtabrenamer_preexec() {
    \builtin local ret=$?
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

# herdrtabrenamer hook for fish. Load it from ~/.config/fish/config.fish with:
#   herdrtabrenamer init fish | source
# When a command starts (fish_preexec) and when it ends (fish_postexec) it
# tells the herdrtabrenamer daemon to look at this pane, so the tab is renamed
# at once instead of at the next poll. It does nothing outside herdr or in
# scripts. Defining a function again replaces it and its event handler, so
# sourcing this twice still gives one nudge per event.
if status is-interactive; and set -q HERDR_PANE_ID; and test -n "$HERDR_PANE_ID"
    set -g __herdrtabrenamer_bin '@HERDRTABRENAMER_BIN@'
    # For `herdrtabrenamer status`: which hooks, in which shell (a shell
    # started from this one inherits the variable but not the hooks).
    set -gx HERDRTABRENAMER_HOOKS fish:$fish_pid

    # $last_pid is the user's when a command line of theirs changed it (a
    # `sleep 60 &`, to `kill $last_pid` later). fish changes it on its own
    # too (the first start generates completions in the background), which
    # must not count, so it is compared before and after each command:
    # __herdrtabrenamer_before is set at each command start and after each
    # nudge from this shell. (Without preexec, a background job started by
    # the very first command line is not seen.)
    # >>> preexec
    function __herdrtabrenamer_mark --on-event fish_preexec
        set -g __herdrtabrenamer_before $last_pid
    end
    # <<< preexec

    function __herdrtabrenamer_nudge
        set -q HERDR_PANE_ID; or return 0
        if not set -q __herdrtabrenamer_user_pid; or test "$last_pid" != "$__herdrtabrenamer_user_pid"
            # $last_pid is not the user's, so it can be overwritten: one
            # spawn, from this shell. disown: fish would otherwise report
            # "Job 1 has ended" at the next prompt. All output goes to
            # /dev/null and nothing waits for it.
            command $__herdrtabrenamer_bin nudge --quiet --when $argv[1] $HERDR_PANE_ID </dev/null >/dev/null 2>&1 &
            builtin disown $last_pid 2>/dev/null
            set -g __herdrtabrenamer_before $last_pid
        else
            # fish has no subshell, so sh starts the nudge in the background
            # and $last_pid stays the user's. sh exits at once; the nudge is
            # not fish's job.
            command sh -c '"$0" "$@" </dev/null >/dev/null 2>&1 &' $__herdrtabrenamer_bin nudge --quiet --when $argv[1] $HERDR_PANE_ID </dev/null >/dev/null 2>&1
        end
    end

    # >>> preexec
    function __herdrtabrenamer_preexec --on-event fish_preexec
        __herdrtabrenamer_nudge preexec
    end
    # <<< preexec

    # fish_postexec rather than fish_prompt: fish_prompt also fires on every
    # repaint (window resize, async prompts), which would nudge for nothing.
    function __herdrtabrenamer_postexec --on-event fish_postexec
        if set -q __herdrtabrenamer_before; and test "$last_pid" != "$__herdrtabrenamer_before"
            set -g __herdrtabrenamer_user_pid $last_pid
        end
        __herdrtabrenamer_nudge precmd
    end
end

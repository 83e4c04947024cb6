# herdrtabrenamer hook for fish. Load it from ~/.config/fish/config.fish with:
#   herdrtabrenamer init fish | source
# When a command starts (fish_preexec) and when it ends (fish_postexec) it
# tells the herdrtabrenamer daemon to look at this pane, so the tab is renamed
# at once instead of at the next poll. It does nothing outside herdr or in
# scripts. Defining a function again replaces it and its event handler, so
# sourcing this twice still gives one nudge per event.
if status is-interactive; and set -q HERDR_PANE_ID; and test -n "$HERDR_PANE_ID"
    set -g __herdrtabrenamer_bin '@HERDRTABRENAMER_BIN@'

    function __herdrtabrenamer_nudge
        set -q HERDR_PANE_ID; or return 0
        # disown: fish would otherwise report "Job 1 has ended" at the next
        # prompt. All output goes to /dev/null and nothing waits for it.
        command $__herdrtabrenamer_bin nudge --quiet --when $argv[1] $HERDR_PANE_ID </dev/null >/dev/null 2>&1 &
        builtin disown $last_pid 2>/dev/null
    end

    # >>> preexec
    function __herdrtabrenamer_preexec --on-event fish_preexec
        __herdrtabrenamer_nudge preexec
    end
    # <<< preexec

    # fish_postexec rather than fish_prompt: fish_prompt also fires on every
    # repaint (window resize, async prompts), which would nudge for nothing.
    function __herdrtabrenamer_postexec --on-event fish_postexec
        __herdrtabrenamer_nudge precmd
    end
end

{
  description = "herdrtabrenamer: names herdr tabs after what runs inside them";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      inherit (nixpkgs) lib;
      systems = [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ];
      forAllSystems = f: lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});

      version = "0.1.0-${self.shortRev or self.dirtyShortRev or "dev"}";

      # go.mod asks for Go 1.26; buildGoModule runs with GOTOOLCHAIN=local,
      # so the toolchain must be 1.26 itself.
      mkPackage =
        pkgs:
        pkgs.buildGo126Module {
          pname = "herdrtabrenamer";
          inherit version;
          src = lib.cleanSource self;
          # NAR hash of `go mod vendor`. It changes with go.mod, go.sum and the
          # set of imported packages: recompute with contrib/vendorhash.sh.
          # flakecheck/flake_test.go fails while this value is stale.
          vendorHash = "sha256-awqGMzQPvEeafWjjKikQlM9G51OiW0cX4MWq1tsBdiA=";
          subPackages = [ "." ];
          ldflags = [
            "-s"
            "-w"
            "-X main.version=${version}"
            # `herdrtabrenamer version` names the channel that built it.
            "-X main.channel=nix"
          ];
          # Completions come from the built binary (`completion SHELL`), so
          # they always match its flags.
          nativeBuildInputs = [ pkgs.installShellFiles ];
          postInstall = lib.optionalString (pkgs.stdenv.buildPlatform.canExecute pkgs.stdenv.hostPlatform) ''
            installShellCompletion --cmd herdrtabrenamer \
              --bash <($out/bin/herdrtabrenamer completion bash) \
              --zsh <($out/bin/herdrtabrenamer completion zsh) \
              --fish <($out/bin/herdrtabrenamer completion fish)
          '';
          # The tests need real shells on ptys and herdr's protocol schemas
          # from outside this repository; CI runs them (.ci/run).
          doCheck = false;
          meta = {
            description = "Names herdr tabs after what runs inside them";
            homepage = "https://github.com/herdrtabrenamer/herdrtabrenamer";
            mainProgram = "herdrtabrenamer";
          };
        };

      # The home-manager module. Naming settings (format, maxLen, icons,
      # rules, and anything in the free-form `settings`) go to config.toml,
      # so `herdrtabrenamer explain` and `once` in a shell name tabs exactly
      # as the service does; daemon-only settings (apply, poll, extraArgs)
      # go on the service's command line, so a hand-run `once` stays a dry
      # run. flake_module_test.go checks every option against the program's
      # flags and config keys.
      homeManagerModule =
        {
          config,
          lib,
          pkgs,
          ...
        }:
        let
          cfg = config.services.herdrtabrenamer;
          inherit (lib) mkEnableOption mkIf mkOption types;
          tomlFormat = pkgs.formats.toml { };
          exe = "${cfg.package}/bin/herdrtabrenamer";

          # Unset (null) values and empty lists are left out, so the
          # program's own defaults apply.
          present = lib.filterAttrs (n: v: v != null && v != [ ] && n != "_module");

          # Keys of config.toml are the program's long flag names, plus the
          # [[rules]] and [[rewrites]] tables. `settings` is written as it is;
          # the typed options below are a shorthand and win over it.
          settings =
            cfg.settings
            // present {
              format = cfg.format;
              max-len = cfg.maxLen;
              icons = cfg.icons;
              rules = map present cfg.rules;
              rewrites = map present cfg.rewrites;
            };

          # ExecStart words: double-quoted with systemd's escapes, and % and
          # $ doubled so systemd expands no specifier or variable in them.
          systemdWord = w: "\"" + lib.replaceStrings [ "\\" "\"" "%" "$" ] [ "\\\\" "\\\"" "%%" "$$" ] w + "\"";

          nullOr = type: mkOption {
            type = types.nullOr type;
            default = null;
          };
          configFile = tomlFormat.generate "herdrtabrenamer-config.toml" settings;

          args =
            [ "run" ]
            ++ lib.optional cfg.apply "--apply"
            # The herdr plugin may already run a daemon for this herdr:
            # then the service exits 0 instead of failing into its restart
            # limit.
            ++ [ "--if-not-running" ]
            ++ lib.optionals (cfg.poll != null) [
              "--poll"
              cfg.poll
            ]
            # The store path changes with the settings, so home-manager
            # restarts the service when they do.
            ++ [
              "--config"
              "${configFile}"
            ]
            ++ cfg.extraArgs;
        in
        {
          # The first release called them shellIntegration.{zsh,bash,fish}.
          imports = [
            (lib.mkRenamedOptionModule [ "services" "herdrtabrenamer" "shellIntegration" "zsh" ] [ "services" "herdrtabrenamer" "enableZshIntegration" ])
            (lib.mkRenamedOptionModule [ "services" "herdrtabrenamer" "shellIntegration" "bash" ] [ "services" "herdrtabrenamer" "enableBashIntegration" ])
            (lib.mkRenamedOptionModule [ "services" "herdrtabrenamer" "shellIntegration" "fish" ] [ "services" "herdrtabrenamer" "enableFishIntegration" ])
          ];

          options.services.herdrtabrenamer = {
            enable = mkEnableOption "herdrtabrenamer, which names herdr tabs after what runs inside them";

            package = mkOption {
              type = types.package;
              default = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
              defaultText = lib.literalExpression "herdrtabrenamer.packages.\${pkgs.stdenv.hostPlatform.system}.default";
              description = "The herdrtabrenamer package to run.";
            };

            settings = mkOption {
              type = tomlFormat.type;
              default = { };
              example = lib.literalExpression ''
                {
                  format = "{icon} {proc|dir}";
                  unique = true;
                  rules = [ { dir = "~/work/**"; format = "{repo}:{branch}"; } ];
                }
              '';
              description = "config.toml as Nix: keys are the program's long flag names, plus rules and rewrites lists (see `herdrtabrenamer --help` and README).";
            };

            format = mkOption {
              type = types.nullOr types.str;
              default = null;
              example = "{icon}{proc|dir}";
              description = "Name template (--format); null keeps the program's default, {proc|dir}.";
            };

            apply = mkOption {
              type = types.bool;
              default = true;
              description = "Rename tabs (--apply); false runs the service as a dry run that only logs.";
            };

            poll = mkOption {
              type = types.nullOr types.str;
              default = null;
              example = "10s";
              description = "Full pass interval besides events, a Go duration (--poll); \"0\" for events only; null keeps the default, 3s.";
            };

            icons = mkOption {
              type = types.nullOr types.str;
              default = null;
              example = "blocked=🟥,idle=";
              description = "Status icons (--icons); null keeps the default icons.";
            };

            maxLen = mkOption {
              type = types.nullOr types.ints.unsigned;
              default = null;
              example = 32;
              description = "Longest name in display columns, 0 for no limit (max-len); null keeps the default, 24.";
            };

            rules = mkOption {
              type = types.listOf (
                types.submodule {
                  options = {
                    dir = nullOr types.str // {
                      description = "Glob on the working directory or an ancestor, e.g. ~/src/*.";
                    };
                    program = nullOr types.str // {
                      description = "Glob on the program name, e.g. {n,}vim.";
                    };
                    format = nullOr types.str // {
                      description = "Name template for matching tabs.";
                    };
                    name = nullOr types.str // {
                      description = "Fixed name for matching tabs.";
                    };
                    skip = nullOr types.bool // {
                      description = "Never rename matching tabs.";
                    };
                    pane-format = nullOr types.str // {
                      description = "Name template for the panes of matching tabs (with pane-format set).";
                    };
                  };
                }
              );
              default = [ ];
              example = lib.literalExpression ''
                [
                  { dir = "~/src/**"; format = "{repo}"; }
                  { program = "htop"; skip = true; }
                ]
              '';
              description = "Override rules, written as [[rules]] tables; the first match wins.";
            };

            rewrites = mkOption {
              type = types.listOf (
                types.submodule {
                  options = {
                    match = nullOr types.str // {
                      description = "Go regular expression on the program name.";
                    };
                    replace = nullOr types.str // {
                      description = "Replacement; may use $1 and \${name}; \"\" hides the program.";
                    };
                  };
                }
              );
              default = [ ];
              description = "Program name rewrites, written as [[rewrites]] tables.";
            };

            enableZshIntegration = mkEnableOption "the zsh hook that tells the daemon about each command at once";
            enableBashIntegration = mkEnableOption "the bash hook that tells the daemon about each command at once";
            enableFishIntegration = mkEnableOption "the fish hook that tells the daemon about each command at once";

            extraArgs = mkOption {
              type = types.listOf types.str;
              default = [ ];
              example = [
                "--unique"
                "--log-level"
                "debug"
              ];
              description = "More arguments for `herdrtabrenamer run`.";
            };
          };

          config = mkIf cfg.enable (
            lib.mkMerge [
              {
                home.packages = [ cfg.package ];
                xdg.configFile."herdrtabrenamer/config.toml".source = configFile;
              }
              (mkIf cfg.enableZshIntegration {
                programs.zsh.initContent = ''
                  eval "$(${exe} init zsh)"
                '';
              })
              (mkIf cfg.enableBashIntegration {
                programs.bash.initExtra = ''
                  eval "$(${exe} init bash)"
                '';
              })
              (mkIf cfg.enableFishIntegration {
                programs.fish.interactiveShellInit = ''
                  ${exe} init fish | source
                '';
              })
              (mkIf pkgs.stdenv.hostPlatform.isLinux {
                systemd.user.services.herdrtabrenamer = {
                  Unit = {
                    Description = "Name herdr tabs after what runs inside them";
                    StartLimitIntervalSec = 60;
                    StartLimitBurst = 4;
                  };
                  # The same service and sandbox as contrib/herdrtabrenamer.service.
                  Service = {
                    ExecStart = lib.concatMapStringsSep " " systemdWord ([ exe ] ++ args);
                    ExecReload = "/bin/kill -HUP $MAINPID";
                    Restart = "on-failure";
                    RestartSec = 1;
                    StateDirectory = "herdrtabrenamer";
                    RuntimeDirectory = "herdrtabrenamer";
                    RuntimeDirectoryMode = "0700";
                    RuntimeDirectoryPreserve = "yes";
                    UMask = "0077";
                    NoNewPrivileges = true;
                    ProtectSystem = "strict";
                    ProtectHome = "read-only";
                    PrivateTmp = true;
                    PrivateDevices = true;
                    # No PrivateNetwork: the single-instance beacon is an abstract socket (see contrib/herdrtabrenamer.service).
                    RestrictAddressFamilies = "AF_UNIX";
                    IPAddressDeny = "any";
                    CapabilityBoundingSet = "";
                    ProtectKernelTunables = true;
                    ProtectKernelModules = true;
                    ProtectKernelLogs = true;
                    ProtectControlGroups = true;
                    ProtectClock = true;
                    ProtectHostname = true;
                    RestrictNamespaces = true;
                    RestrictRealtime = true;
                    RestrictSUIDSGID = true;
                    LockPersonality = true;
                    MemoryDenyWriteExecute = true;
                    SystemCallArchitectures = "native";
                    SystemCallFilter = [
                      "@system-service"
                      "~@privileged @resources"
                    ];
                    SystemCallErrorNumber = "EPERM";
                  };
                  Install.WantedBy = [ "default.target" ];
                };
              })
              (mkIf pkgs.stdenv.hostPlatform.isDarwin {
                launchd.agents.herdrtabrenamer = {
                  enable = true;
                  config = {
                    ProgramArguments = [ exe ] ++ args;
                    RunAtLoad = true;
                    KeepAlive.SuccessfulExit = false;
                    ProcessType = "Background";
                    StandardOutPath = "${config.home.homeDirectory}/Library/Logs/herdrtabrenamer.log";
                    StandardErrorPath = "${config.home.homeDirectory}/Library/Logs/herdrtabrenamer.log";
                  };
                };
              })
            ]
          );
        };
    in
    {
      packages = forAllSystems (pkgs: {
        herdrtabrenamer = mkPackage pkgs;
        default = mkPackage pkgs;
      });

      apps = forAllSystems (pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${pkgs.stdenv.hostPlatform.system}.default}/bin/herdrtabrenamer";
        };
      });

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.go_1_26
            pkgs.gopls
            pkgs.go-tools # staticcheck
            pkgs.zsh # the completion and hook tests drive real shells
            pkgs.bashInteractive
            pkgs.fish
          ];
        };
      });

      overlays.default = final: _prev: { herdrtabrenamer = mkPackage final; };

      homeManagerModules.default = homeManagerModule;
      # The name newer home-manager documentation uses.
      homeModules.default = homeManagerModule;
    };
}

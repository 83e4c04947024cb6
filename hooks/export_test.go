package hooks

// repoPluginManifest is the herdr-plugin.toml at the repository root, which
// `herdr plugin install` reads: [[build]] compiles RepoBinary in herdr's
// checkout and every command runs it.
func repoPluginManifest() (string, error) { return renderManifest(RepoBinary, true) }

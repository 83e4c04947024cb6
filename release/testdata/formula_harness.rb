# Loads a Homebrew formula under a stand-in for Homebrew's Formula DSL and
# prints what Homebrew would do on one platform: the url and sha256 it
# downloads and what install and test call. Usage: ruby formula_harness.rb
# OS ARCH FORMULA.rb, with OS darwin or linux and ARCH amd64 or arm64.
$os, $arch, path = ARGV
$seen = Hash.new { |h, k| h[k] = [] }

class Formula
  class << self
    %i[desc homepage version license url sha256].each do |name|
      define_method(name) { |value| $seen[name] << value }
    end

    def on_macos = ($os == "darwin" && yield)
    def on_linux = ($os == "linux" && yield)
    def on_arm = ($arch == "arm64" && yield)
    def on_intel = ($arch == "amd64" && yield)
    def test(&block) = ($seen[:test] << block)
  end

  # What install calls: bin.install, man1.install and the completions
  # helper.
  Bin = Struct.new(:path) do
    def install(*files) = ($seen[:bin_install].concat(files))
    def /(other) = "#{path}/#{other}"
  end
  Man1 = Struct.new(:path) do
    def install(*files) = ($seen[:man1_install].concat(files))
  end

  def bin = Bin.new("BIN")
  def man1 = Man1.new("MAN1")
  def generate_completions_from_executable(*args) = ($seen[:completions] << args.join(" "))
end

load path
klass = ObjectSpace.each_object(Class).find { |c| c < Formula }
klass.new.install
$seen.each do |key, values|
  values.each { |v| puts "#{key} #{v.is_a?(Proc) ? "block" : v}" }
end

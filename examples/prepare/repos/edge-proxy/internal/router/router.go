// summary: Routing table: picks the upstream pool for a request by host and path prefix.
// read-when: a request reaches the wrong backend
package router

type Route struct {
	Host, Prefix, Pool string
}

func Pick(routes []Route, host, path string) (string, bool) {
	for _, r := range routes {
		if r.Host == host && Match(r.Prefix, path) {
			return r.Pool, true
		}
	}
	return "", false
}

// summary: Path-prefix matching on segment boundaries.
package router

import "strings"

func Match(prefix, path string) bool {
	return path == prefix || strings.HasPrefix(path, strings.TrimSuffix(prefix, "/")+"/")
}

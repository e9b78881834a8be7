// summary: Access log lines in the combined format, one per request.
package logging

import "fmt"

func AccessLine(remote, method, path string, status, bytes int) string {
	return fmt.Sprintf("%s \"%s %s\" %d %d", remote, method, path, status, bytes)
}

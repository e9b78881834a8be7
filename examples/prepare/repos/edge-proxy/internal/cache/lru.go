// summary: Response cache for GET requests honouring Cache-Control max-age.
package cache

type Entry struct {
	Body    []byte
	Expires int64
}

func Fresh(e Entry, now int64) bool { return now < e.Expires }

// summary: Upstream pools and round-robin selection of a backend.
package upstream

type Pool struct {
	Backends []string
	next     int
}

func (p *Pool) Next() string {
	backend := p.Backends[p.next%len(p.Backends)]
	p.next++
	return backend
}

// summary: Token-bucket rate limiting per client address.
package ratelimit

type Bucket struct {
	Tokens, Capacity, RefillPerSecond float64
}

func (b *Bucket) Allow(elapsedSeconds float64) bool {
	b.Tokens = min(b.Capacity, b.Tokens+elapsedSeconds*b.RefillPerSecond)
	if b.Tokens < 1 {
		return false
	}
	b.Tokens--
	return true
}

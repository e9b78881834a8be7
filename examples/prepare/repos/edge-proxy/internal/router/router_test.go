package router

import "testing"

func TestMatchStopsAtSegments(t *testing.T) {
	if Match("/api", "/apix") {
		t.Fatal("a prefix matched inside a segment")
	}
}

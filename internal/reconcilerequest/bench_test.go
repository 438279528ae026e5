package reconcilerequest

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkPublish measures one acknowledged publish on a file-backed stream,
// spread over 1000 KCLRun subjects.
func BenchmarkPublish(b *testing.B) {
	ctx := context.Background()
	js := runJetStream(b)
	if _, err := EnsureStream(ctx, js, ""); err != nil {
		b.Fatal(err)
	}
	pub := NewPublisher(js, "")
	subjects := make([]string, 1000)
	for i := range subjects {
		subjects[i] = fmt.Sprintf("app-%d", i)
	}
	b.ResetTimer()
	for i := range b.N {
		req := Request{Namespace: "bench", Name: subjects[i%len(subjects)], Generation: int64(i), Reason: ReasonGenerationChanged}
		if _, err := pub.Publish(ctx, req, fmt.Sprintf("uid-%d/generation/%d", i%len(subjects), i)); err != nil {
			b.Fatal(err)
		}
	}
}

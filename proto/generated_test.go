// Package proto holds the gRPC contracts of the workers; this test keeps the
// committed Go code in step with the .proto files.
package proto

import (
	"os/exec"
	"testing"
)

func TestGeneratedCodeIsUpToDate(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc not installed (apt-get install -y protobuf-compiler)")
	}
	out, err := exec.Command("../hack/proto.sh", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("generated code is stale: %v\n%s", err, out)
	}
}

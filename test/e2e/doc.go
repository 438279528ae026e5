// Package e2e holds the end-to-end suite: the quick-start story of
// flux-kcl-controller on one machine, with every part real.
//
// TestMain starts, all on 127.0.0.1:
//   - kube-apiserver and etcd (test/harness/kube), plus the HelmRepository
//     and HelmChart CRDs source-controller also watches;
//   - a Git server over HTTP (test/harness/gitserver);
//   - the real Flux source-controller v1.9.6 as a child process, built once by
//     hack/e2e/build.sh (test/harness/sourcecontroller);
//   - the all-in-one controller (cmd/flux-kcl-controller/allinone) in this process.
//
// Each story (one file each) pushes its own repository, creates a
// GitRepository and a KCLRun in a fresh namespace, then commits with git and
// asks source-controller to fetch at once, as `flux reconcile source git` does.
// The OCIRepository story pushes to an in-process registry
// (go-containerregistry pkg/registry) instead. Logs of both controllers and of
// the Git server go to files in a temporary folder, kept and printed when a
// test fails. The suite skips when git is not installed, and under -short
// (make test-unit).
//
//	go test -p 1 -v ./test/e2e/
package e2e

// Package install verifies the three install paths of flux-kcl-controller on a real
// kube-apiserver (test/harness/kube): the Helm chart (charts/flux-kcl-controller, rendered
// with the Helm Go SDK for the values files in its ci/ folder), the kustomize overlay
// (deploy/default, built with krusty) and the Flux install (install/rc.yaml, checked against
// the HelmRelease and GitRepository schemas). Every rendered object is server-side applied in
// dry-run mode; the chart's RBAC is applied for real and the services run in-process with the
// chart's ServiceAccounts' permissions (impersonated) through a full reconcile. The optional
// Alert extension (deploy/components/alert-kclrun and the chart's alertKCLRun Job) is checked
// against notification-controller's generated Alert and Receiver CRDs (crds.sh). The web view
// (ui.enabled) is checked the same way: rendered, accepted, its ServiceAccount's rights read
// back from the authorizer, and the view run behind the proxy with those rights only.
//
// It is its own module (Helm and kustomize pull many modules the controller does not need):
//
//	make test-install
package install

package applier

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/cache"
	runtimeclient "github.com/fluxcd/pkg/runtime/client"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
)

// cluster is where one KCLRun's objects go: a client acting as the KCLRun's
// service account (or the controller), on this or a remote cluster.
type cluster struct {
	client client.Client
	mapper apimeta.RESTMapper
	poller *polling.StatusPoller
	local  bool
	// remote is how the drift watcher reaches a remote cluster; nil when local.
	remote *remoteCluster
}

// remoteCluster names a remote cluster by the object holding its kubeconfig
// and that object's revision, with the config the drift watcher lists with
// (the kubeconfig's own identity, not an impersonated account).
type remoteCluster struct {
	source, version string
	config          *rest.Config
}

// clusterClients caches clusters by identity, so that each service account
// and each kubeconfig Secret revision costs one discovery, not one per reconcile.
type clusterClients struct {
	base   *rest.Config
	scheme *runtime.Scheme
	// tokens caches the workload identity tokens of kubeConfig.configMapRef.
	tokens *cache.TokenCache

	mu       sync.Mutex
	cache    map[string]*cluster
	mappers  map[string]apimeta.RESTMapper
	httpByID map[string]*http.Client
}

func newClusterClients(base *rest.Config, scheme *runtime.Scheme, tokens *cache.TokenCache) *clusterClients {
	return &clusterClients{base: base, scheme: scheme, tokens: tokens, cache: map[string]*cluster{}, mappers: map[string]apimeta.RESTMapper{}, httpByID: map[string]*http.Client{}}
}

// localCluster is the controller's own identity on its own cluster.
func (c *clusterClients) localCluster() (*cluster, error) {
	return c.get("local", "local", rest.CopyConfig(c.base), nil)
}

// forKCLRun picks the identity: spec.kubeConfig for a remote cluster, else
// spec.serviceAccountName or the default service account impersonated, else
// the controller itself.
func (c *clusterClients) forKCLRun(ctx context.Context, reader client.Client, obj *v1alpha1.KCLRun, defaultSA string) (*cluster, error) {
	sa := obj.Spec.ServiceAccountName
	if ref := obj.Spec.KubeConfig; ref != nil && ref.ConfigMapRef != nil {
		cm := &corev1.ConfigMap{}
		name := types.NamespacedName{Namespace: obj.Namespace, Name: ref.ConfigMapRef.Name}
		if err := reader.Get(ctx, name, cm); err != nil {
			return nil, fmt.Errorf("reading kubeconfig ConfigMap '%s': %w", name, err)
		}
		// The token identity is the ConfigMap's (serviceAccountName); one
		// client per ConfigMap revision, and per KCLRun's SA impersonated there.
		mapperID := fmt.Sprintf("configmap/%s/%s", name, cm.ResourceVersion)
		id := mapperID
		if sa != "" {
			id += "/" + sa
		}
		if cl, ok := c.cached(id); ok {
			return cl, nil
		}
		cfg, err := workloadIdentityConfig(ctx, reader, c.tokens, obj, cm)
		if err != nil {
			return nil, err
		}
		remote := &remoteCluster{source: "ConfigMap/" + name.String(), version: cm.ResourceVersion, config: rest.CopyConfig(cfg)}
		if sa != "" {
			cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceAccountUser(obj.Namespace, sa)}
		}
		return c.get(id, mapperID, cfg, remote)
	}
	if ref := obj.Spec.KubeConfig; ref != nil {
		if ref.SecretRef == nil {
			return nil, fmt.Errorf("spec.kubeConfig names neither a secretRef nor a configMapRef")
		}
		secret := &corev1.Secret{}
		name := types.NamespacedName{Namespace: obj.Namespace, Name: ref.SecretRef.Name}
		if err := reader.Get(ctx, name, secret); err != nil {
			return nil, fmt.Errorf("reading kubeconfig Secret '%s': %w", name, err)
		}
		key := ref.SecretRef.Key
		var data []byte
		if key != "" {
			data = secret.Data[key]
		} else if data = secret.Data["value"]; data == nil {
			data = secret.Data["value.yaml"]
		}
		if len(data) == 0 {
			return nil, fmt.Errorf("kubeconfig Secret '%s' has no key '%s'", name, key)
		}
		cfg, err := runtimeclient.KubeConfigFromBytes(data)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig Secret '%s': %w", name, err)
		}
		id := fmt.Sprintf("kubeconfig/%s/%s", name, secret.ResourceVersion)
		remote := &remoteCluster{source: "Secret/" + name.String(), version: secret.ResourceVersion, config: rest.CopyConfig(cfg)}
		if sa != "" {
			cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceAccountUser(obj.Namespace, sa)}
			id += "/" + sa
		}
		return c.get(id, "kubeconfig/"+name.String()+"/"+secret.ResourceVersion, cfg, remote)
	}
	if sa == "" {
		sa = defaultSA
	}
	if sa == "" {
		return c.localCluster()
	}
	account := &corev1.ServiceAccount{}
	if err := reader.Get(ctx, types.NamespacedName{Namespace: obj.Namespace, Name: sa}, account); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("unable to impersonate ServiceAccount '%s/%s': not found", obj.Namespace, sa)
		}
		return nil, fmt.Errorf("reading ServiceAccount '%s/%s': %w", obj.Namespace, sa, err)
	}
	cfg := rest.CopyConfig(c.base)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceAccountUser(obj.Namespace, sa)}
	return c.get("sa/"+obj.Namespace+"/"+sa, "local", cfg, nil)
}

func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// cached is the cluster of an identity built before, if any.
func (c *clusterClients) cached(id string) (*cluster, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.cache[id]
	return cl, ok
}

// get builds or reuses the cluster of an identity; the REST mapper is shared
// per cluster (mapperID) and discovers as the controller, since impersonated
// accounts may not read discovery. remote is nil for the local cluster.
func (c *clusterClients) get(id, mapperID string, cfg *rest.Config, remote *remoteCluster) (*cluster, error) {
	local := remote == nil
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.cache[id]; ok {
		return cl, nil
	}
	mapper, ok := c.mappers[mapperID]
	if !ok {
		discoveryCfg := cfg
		if local {
			discoveryCfg = c.base
		}
		httpClient, err := rest.HTTPClientFor(discoveryCfg)
		if err != nil {
			return nil, fmt.Errorf("building HTTP client: %w", err)
		}
		mapper, err = apiutil.NewDynamicRESTMapper(discoveryCfg, httpClient)
		if err != nil {
			return nil, fmt.Errorf("building REST mapper: %w", err)
		}
		c.mappers[mapperID] = mapper
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(recordStatusCodes)
	kube, err := client.New(cfg, client.Options{Scheme: c.scheme, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("building client: %w", err)
	}
	cl := &cluster{
		client: kube,
		mapper: mapper,
		poller: polling.NewStatusPoller(kube, mapper, polling.Options{}),
		local:  local,
		remote: remote,
	}
	c.cache[id] = cl
	return cl, nil
}

// resourcesOf maps inventory entries to the resources the drift watcher lists.
func (cl *cluster) resourcesOf(inv *v1alpha1.ResourceInventory) []schema.GroupVersionResource {
	objects, err := inventory.Objects(inv)
	if err != nil {
		return nil
	}
	seen := map[schema.GroupVersionResource]bool{}
	var out []schema.GroupVersionResource
	for _, o := range objects {
		gvk := o.GroupVersionKind()
		mapping, err := cl.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			continue
		}
		if !seen[mapping.Resource] {
			seen[mapping.Resource] = true
			out = append(out, mapping.Resource)
		}
	}
	return out
}

// objMetadata identifies an object for ssa's wait helpers.
func objMetadata(namespace, name, apiVersion, kind string) (object.ObjMetadata, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return object.ObjMetadata{}, fmt.Errorf("health check %s/%s: %w", kind, name, err)
	}
	return object.ObjMetadata{Namespace: namespace, Name: name, GroupKind: schema.GroupKind{Group: gv.Group, Kind: kind}}, nil
}

// Package cluster reads objects from a live Kubernetes cluster for `plumb
// compare` without -f, the way kubectl cluster-compare does in its live
// mode: the kubeconfig (--kubeconfig, KUBECONFIG, ~/.kube/config) and its
// --context select the cluster; only the kinds a reference's templates name
// are fetched, across all namespaces, with read-only list calls paginated
// with `continue`. A kind the cluster does not serve, or that RBAC does not
// let the user list, is a warning, not an error: the rest is compared.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Kind is an apiVersion and kind a reference template names. An empty
// APIVersion matches the kind in every group version the cluster serves
// (a template whose apiVersion is templated).
type Kind struct {
	APIVersion string
	Kind       string
}

func (k Kind) String() string {
	if k.APIVersion == "" {
		return k.Kind
	}
	return k.APIVersion + " " + k.Kind
}

// Options select the cluster and bound the fetch.
type Options struct {
	// Kubeconfig is the kubeconfig file (--kubeconfig); empty uses the
	// KUBECONFIG variable, then ~/.kube/config, as kubectl does.
	Kubeconfig string
	// Context is the kubeconfig context (--context); empty is the current
	// one.
	Context string
	// Concurrency is how many kinds are listed at once (--concurrency;
	// default DefaultConcurrency).
	Concurrency int
	// PageSize is the number of objects asked for per list call (default
	// DefaultPageSize); the rest comes with `continue`.
	PageSize int64
	// MaxObjects bounds the objects read in all (default
	// DefaultMaxObjects): a cluster dump must not exhaust memory.
	MaxObjects int
}

// Defaults of Options.
const (
	DefaultConcurrency = 4
	DefaultPageSize    = 500
	DefaultMaxObjects  = 200_000
)

// Result is what was read: the objects in a deterministic order (kinds in
// the order asked, objects as the API server lists them), and one warning
// per kind that could not be read.
type Result struct {
	Objects  []map[string]any
	Warnings []string
}

// RESTConfig reads the client configuration from the kubeconfig, as
// kubectl does (with its --kubeconfig and --context flags).
func RESTConfig(opts Options) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if opts.Kubeconfig != "" {
		rules.ExplicitPath = opts.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: opts.Context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, errors.New("no kubeconfig found (--kubeconfig, $KUBECONFIG, ~/.kube/config): without -f or -k the objects are read from the kubeconfig's cluster; give files with -f or a kustomization with -k to compare without a cluster")
	}
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	// kubectl's rates: discovery and a list per kind must not be throttled
	// to client-go's default 5 requests per second.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "plumb-compare"
	return cfg, nil
}

// Fetch lists every object of kinds from the cluster cfg points at.
func Fetch(ctx context.Context, cfg *rest.Config, kinds []Kind, opts Options) (*Result, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster: %w", err)
	}
	d, err := newDiscoverer(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster: %w", err)
	}
	resources, warnings, err := d.resolve(ctx, kinds)
	if err != nil {
		return nil, err
	}
	return list(ctx, dyn, resources, warnings, opts)
}

// resource is a listable resource for a kind.
type resource struct {
	kind Kind
	gvr  schema.GroupVersionResource
}

// list reads each resource across all namespaces, concurrency at a time.
func list(ctx context.Context, dyn dynamic.Interface, resources []resource, warnings []string, opts Options) (*Result, error) {
	workers := opts.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	pageSize := opts.PageSize
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	maxObjects := opts.MaxObjects
	if maxObjects <= 0 {
		maxObjects = DefaultMaxObjects
	}
	type outcome struct {
		objects []map[string]any
		warning string
		err     error
	}
	outcomes := make([]outcome, len(resources))
	var total sync.Mutex
	count := 0
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, r := range resources {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var cont string
			for {
				page, err := dyn.Resource(r.gvr).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: pageSize, Continue: cont})
				if err != nil {
					switch {
					case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
						outcomes[i].warning = fmt.Sprintf("cannot list %s (%s): %s; templates of that kind match nothing", r.kind, r.gvr.Resource, apierrors.ReasonForError(err))
					case apierrors.IsNotFound(err), apierrors.IsMethodNotSupported(err):
						outcomes[i].warning = fmt.Sprintf("the cluster does not serve %s: templates of that kind match nothing", r.kind)
					default:
						outcomes[i].err = fmt.Errorf("listing %s: %w", r.kind, err)
					}
					outcomes[i].objects = nil
					return
				}
				total.Lock()
				count += len(page.Items)
				over := count > maxObjects
				total.Unlock()
				if over {
					outcomes[i].err = fmt.Errorf("the cluster holds more than %d objects of the kinds the reference names; compare a must-gather or an export with -f instead", maxObjects)
					return
				}
				for _, it := range page.Items {
					// Items of typed lists may omit their type.
					if it.GetKind() == "" {
						it.SetAPIVersion(r.kind.APIVersion)
						it.SetKind(r.kind.Kind)
					}
					outcomes[i].objects = append(outcomes[i].objects, it.Object)
				}
				next := page.GetContinue()
				if next == "" {
					return
				}
				if next == cont {
					outcomes[i].err = fmt.Errorf("listing %s: the server returned the same continue token twice", r.kind)
					return
				}
				cont = next
			}
		}()
	}
	wg.Wait()
	res := &Result{Warnings: warnings}
	var errs []error
	for _, o := range outcomes {
		if o.err != nil {
			errs = append(errs, o.err)
		}
		if o.warning != "" {
			res.Warnings = append(res.Warnings, o.warning)
		}
		res.Objects = append(res.Objects, o.objects...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return res, nil
}

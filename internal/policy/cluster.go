package policy

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// This file builds, in the process, the parts of a cluster the API
// server's policy library reads through informers and clients: the
// namespaces (for namespace selectors and the namespace variable), the
// params, and the resource names and scopes of kinds.

// defaultNamespace is where a namespaced object without metadata.namespace
// is evaluated: kubectl's and the controllers' default when the context
// names none.
const defaultNamespace = "default"

// nameLabel is the label the API server sets on every namespace (since
// Kubernetes 1.21): a namespace the render does not define has it and no
// other label.
const nameLabel = "kubernetes.io/metadata.name"

// kinds knows the resource name and scope of kinds: from the
// CustomResourceDefinitions of the render, else kustomize's table of
// built-in cluster-scoped kinds and Kubernetes' plural rule.
type kinds struct {
	crds map[schema.GroupKind]crdNames
}

type crdNames struct {
	plural     string
	namespaced bool
}

func newKinds(objs []*manifest.Object) *kinds {
	k := &kinds{crds: map[schema.GroupKind]crdNames{}}
	for _, o := range objs {
		if o.ID.Kind != "CustomResourceDefinition" || o.ID.Group() != "apiextensions.k8s.io" {
			continue
		}
		spec, _ := o.Content["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		group, _ := spec["group"].(string)
		kind, _ := names["kind"].(string)
		plural, _ := names["plural"].(string)
		scope, _ := spec["scope"].(string)
		if kind == "" || plural == "" {
			continue
		}
		gk := schema.GroupKind{Group: group, Kind: kind}
		if _, seen := k.crds[gk]; !seen {
			k.crds[gk] = crdNames{plural: plural, namespaced: scope != "Cluster"}
		}
	}
	return k
}

// irregular are the built-in kinds whose resource name Kubernetes' plural
// rule does not give.
var irregular = map[string]string{"Endpoints": "endpoints"}

// resource returns the group-version-resource of a kind and whether it is
// namespaced.
func (k *kinds) resource(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool) {
	if c, ok := k.crds[gvk.GroupKind()]; ok {
		return gvk.GroupVersion().WithResource(c.plural), c.namespaced
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	if r, ok := irregular[gvk.Kind]; ok && gvk.Group == "" {
		gvr.Resource = r
	}
	return gvr, !resid.NewGvk(gvk.Group, gvk.Version, gvk.Kind).IsClusterScoped()
}

// namespaces is a namespace lister over the Namespace objects of a render,
// with a namespace for every other name an object uses (labelled with its
// name only, as the API server labels every namespace): the library's
// matcher falls back to a live client for a namespace its lister lacks,
// and there is none.
func namespaces(own, others []*manifest.Object, used []string) corev1listers.NamespaceLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	add := func(o *manifest.Object) {
		if _, exists, _ := idx.GetByKey(o.ID.Name); exists {
			return
		}
		ns := &corev1.Namespace{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Content, ns); err != nil {
			return
		}
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		// The API server sets it on create and update, whatever was written.
		ns.Labels[nameLabel] = ns.Name
		_ = idx.Add(ns)
	}
	for _, o := range own {
		add(o)
	}
	for _, o := range others {
		add(o)
	}
	for _, name := range used {
		if _, exists, _ := idx.GetByKey(name); !exists && name != "" {
			_ = idx.Add(&corev1.Namespace{ObjectMeta: metaName(name)})
		}
	}
	return corev1listers.NewNamespaceLister(idx)
}

// params is an in-process informer over the render's objects of one param
// kind, for generic.CollectParams: it lists from an indexer that is always
// in sync (the render is complete before evaluation starts).
type params struct {
	lister cache.GenericLister
}

var _ informers.GenericInformer = params{}

func newParams(gvr schema.GroupVersionResource, own, others []*manifest.Object) params {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, list := range [][]*manifest.Object{own, others} {
		for _, o := range list {
			u := &unstructured.Unstructured{Object: o.Content}
			if _, exists, _ := idx.Get(u); !exists {
				_ = idx.Add(u)
			}
		}
	}
	return params{lister: cache.NewGenericLister(idx, gvr.GroupResource())}
}

func (p params) Lister() cache.GenericLister         { return p.lister }
func (p params) Informer() cache.SharedIndexInformer { return syncedInformer{} }

// syncedInformer is what CollectParams asks of the informer: whether it
// has synced. Nothing else of the interface is called; the embedded nil
// interface makes any other call fail loudly rather than quietly.
type syncedInformer struct{ cache.SharedIndexInformer }

func (syncedInformer) HasSynced() bool { return true }

// paramKey names the objects of one param kind.
func paramKey(apiVersion, kind string) string { return apiVersion + "\x00" + kind }

func objectParamKey(o *manifest.Object) string { return paramKey(o.ID.APIVersion, o.ID.Kind) }

// excludedGroup reports whether the API server's admission policies never
// apply to objects of the group: the admission configuration itself
// (webhook configurations, policies, bindings) is excluded, so that a
// policy cannot lock out its own repair.
func excludedGroup(group string) bool {
	return group == admissionGroup || strings.HasSuffix(group, ".admissionregistration.k8s.io")
}

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// discoverer finds the resources that serve the kinds asked, reading only
// the discovery documents it needs: the resource list of each group
// version a template names, and the group list only for kinds whose
// apiVersion is templated. It uses client-go's REST client (the
// kubeconfig's authentication, TLS and rate limits) and decodes the
// documents into apimachinery's types; client-go's discovery package is not
// used because it links every typed Kubernetes API into the binary
// (+37 MB, and twice the memory of every plumb run at start-up) and reads
// every group version of the cluster.
type discoverer struct {
	client rest.Interface
}

func newDiscoverer(cfg *rest.Config) (*discoverer, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = nil
	c.APIPath = ""
	c.NegotiatedSerializer = serializer.NewCodecFactory(runtime.NewScheme()).WithoutConversion()
	client, err := rest.UnversionedRESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return &discoverer{client: client}, nil
}

// get reads one discovery document into v; found is false on 404, and on
// 403 (a document RBAC does not let the user read: its kinds cannot be
// read either).
func (d *discoverer) get(ctx context.Context, path string, v any) (found bool, err error) {
	body, err := d.client.Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(ctx)
	switch {
	case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("discovering the cluster's API resources (%s): %w", path, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("discovering the cluster's API resources (%s): %w", path, err)
	}
	return true, nil
}

// groupVersionPath is the discovery path of a group version.
func groupVersionPath(gv string) string {
	if !strings.Contains(gv, "/") {
		return "/api/" + gv
	}
	return "/apis/" + gv
}

// resolve maps kinds to resources. A kind the cluster does not serve is a
// warning; a cluster that cannot be read is an error.
func (d *discoverer) resolve(ctx context.Context, kinds []Kind) ([]resource, []string, error) {
	var warnings []string
	// The group versions to read: those named, and, for kinds without
	// apiVersion, every group's preferred version (the same objects served
	// in two versions would otherwise be compared twice).
	var gvs []string
	add := func(gv string) {
		if !slices.Contains(gvs, gv) {
			gvs = append(gvs, gv)
		}
	}
	var preferred []string
	for _, k := range kinds {
		if k.APIVersion == "" {
			if preferred == nil {
				p, err := d.preferredVersions(ctx)
				if err != nil {
					return nil, nil, err
				}
				preferred = p
			}
			for _, gv := range preferred {
				add(gv)
			}
			continue
		}
		add(k.APIVersion)
	}
	served := map[string][]metav1.APIResource{}
	for _, gv := range gvs {
		var l metav1.APIResourceList
		found, err := d.get(ctx, groupVersionPath(gv), &l)
		if err != nil {
			return nil, nil, err
		}
		if found {
			served[gv] = l.APIResources
		}
	}
	var out []resource
	seen := map[schema.GroupVersionResource]bool{}
	for _, k := range kinds {
		candidates := []string{k.APIVersion}
		if k.APIVersion == "" {
			candidates = preferred
		}
		found := false
		for _, gv := range candidates {
			for _, r := range served[gv] {
				if r.Kind != k.Kind || strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
					continue // another kind, a subresource, or what cannot be listed
				}
				found = true
				parsed, err := schema.ParseGroupVersion(gv)
				if err != nil {
					continue
				}
				gvr := parsed.WithResource(r.Name)
				if !seen[gvr] {
					seen[gvr] = true
					out = append(out, resource{kind: Kind{APIVersion: gv, Kind: k.Kind}, gvr: gvr})
				}
			}
		}
		if !found {
			warnings = append(warnings, fmt.Sprintf("the cluster does not serve %s: templates of that kind match nothing", k))
		}
	}
	return out, warnings, nil
}

// preferredVersions are the core version and every group's preferred one.
func (d *discoverer) preferredVersions(ctx context.Context) ([]string, error) {
	var out []string
	var core metav1.APIVersions
	if found, err := d.get(ctx, "/api", &core); err != nil {
		return nil, err
	} else if found && len(core.Versions) > 0 {
		out = append(out, core.Versions[0])
	}
	var groups metav1.APIGroupList
	if _, err := d.get(ctx, "/apis", &groups); err != nil {
		return nil, err
	}
	for _, g := range groups.Groups {
		if gv := g.PreferredVersion.GroupVersion; gv != "" {
			out = append(out, gv)
		}
	}
	return out, nil
}

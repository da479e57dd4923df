package v1

import (
	"encoding/json"
	"time"
)

// TypeMeta is metav1.TypeMeta.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is metav1.ObjectMeta.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	SelfLink                   string               `json:"selfLink,omitempty"`
	UID                        UID                  `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string             `json:"finalizers,omitempty"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// UID is types.UID.
type UID string

// OwnerReference is metav1.OwnerReference.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                UID    `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ManagedFieldsEntry is metav1.ManagedFieldsEntry; FieldsV1 is kept raw.
type ManagedFieldsEntry struct {
	Manager     string          `json:"manager,omitempty"`
	Operation   string          `json:"operation,omitempty"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Time        *Time           `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType,omitempty"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

// Time is metav1.Time: RFC 3339 in JSON, null for the zero time.
type Time struct {
	time.Time `protobuf:"-"`
}

// UnmarshalJSON accepts RFC 3339 text and null, as metav1.Time does.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// LabelSelector is metav1.LabelSelector.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is metav1.LabelSelectorRequirement.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	Values   []string              `json:"values,omitempty"`
}

// LabelSelectorOperator is metav1.LabelSelectorOperator.
type LabelSelectorOperator string

package v1

import "k8s.io/apimachinery/pkg/api/resource"

// Volume is a VMI volume.
type Volume struct {
	Name         string `json:"name"`
	VolumeSource `json:",inline"`
}

// VolumeSource says where a volume's data comes from.
type VolumeSource struct {
	HostDisk              *HostDisk                          `json:"hostDisk,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	CloudInitNoCloud      *CloudInitNoCloudSource            `json:"cloudInitNoCloud,omitempty"`
	CloudInitConfigDrive  *CloudInitConfigDriveSource        `json:"cloudInitConfigDrive,omitempty"`
	Sysprep               *SysprepSource                     `json:"sysprep,omitempty"`
	ContainerDisk         *ContainerDiskSource               `json:"containerDisk,omitempty"`
	Ephemeral             *EphemeralVolumeSource             `json:"ephemeral,omitempty"`
	EmptyDisk             *EmptyDiskSource                   `json:"emptyDisk,omitempty"`
	DataVolume            *DataVolumeSource                  `json:"dataVolume,omitempty"`
	ConfigMap             *ConfigMapVolumeSource             `json:"configMap,omitempty"`
	Secret                *SecretVolumeSource                `json:"secret,omitempty"`
	DownwardAPI           *DownwardAPIVolumeSource           `json:"downwardAPI,omitempty"`
	ServiceAccount        *ServiceAccountVolumeSource        `json:"serviceAccount,omitempty"`
	DownwardMetrics       *DownwardMetricsVolumeSource       `json:"downwardMetrics,omitempty"`
	MemoryDump            *MemoryDumpVolumeSource            `json:"memoryDump,omitempty"`
}

// HostDisk is a disk image on the node.
type HostDisk struct {
	Path     string            `json:"path"`
	Type     HostDiskType      `json:"type"`
	Capacity resource.Quantity `json:"capacity,omitempty"`
	Shared   *bool             `json:"shared,omitempty"`
}

// HostDiskType is Disk or DiskOrCreate.
type HostDiskType string

// PersistentVolumeClaimVolumeSource is KubeVirt's PVC volume source, which
// embeds the core type of the same name.
type PersistentVolumeClaimVolumeSource struct {
	CorePersistentVolumeClaimVolumeSource `json:",inline"`
	Hotpluggable                          bool `json:"hotpluggable,omitempty"`
}

// CloudInitNoCloudSource is cloud-init NoCloud data.
type CloudInitNoCloudSource struct {
	UserDataSecretRef    *LocalObjectReference `json:"secretRef,omitempty"`
	UserDataBase64       string                `json:"userDataBase64,omitempty"`
	UserData             string                `json:"userData,omitempty"`
	NetworkDataSecretRef *LocalObjectReference `json:"networkDataSecretRef,omitempty"`
	NetworkDataBase64    string                `json:"networkDataBase64,omitempty"`
	NetworkData          string                `json:"networkData,omitempty"`
}

// CloudInitConfigDriveSource is cloud-init config-drive data.
type CloudInitConfigDriveSource struct {
	UserDataSecretRef    *LocalObjectReference `json:"secretRef,omitempty"`
	UserDataBase64       string                `json:"userDataBase64,omitempty"`
	UserData             string                `json:"userData,omitempty"`
	NetworkDataSecretRef *LocalObjectReference `json:"networkDataSecretRef,omitempty"`
	NetworkDataBase64    string                `json:"networkDataBase64,omitempty"`
	NetworkData          string                `json:"networkData,omitempty"`
}

// SysprepSource is Windows sysprep data.
type SysprepSource struct {
	Secret    *LocalObjectReference `json:"secret,omitempty"`
	ConfigMap *LocalObjectReference `json:"configMap,omitempty"`
}

// ContainerDiskSource is a disk image shipped in a container image.
type ContainerDiskSource struct {
	Image           string     `json:"image"`
	ImagePullSecret string     `json:"imagePullSecret,omitempty"`
	Path            string     `json:"path,omitempty"`
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	Hotpluggable    bool       `json:"hotpluggable,omitempty"`
}

// EphemeralVolumeSource is a PVC used copy-on-write.
type EphemeralVolumeSource struct {
	PersistentVolumeClaim *CorePersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
}

// EmptyDiskSource is a temporary empty disk.
type EmptyDiskSource struct {
	Capacity resource.Quantity `json:"capacity"`
}

// DataVolumeSource names a CDI DataVolume.
type DataVolumeSource struct {
	Name         string `json:"name"`
	Hotpluggable bool   `json:"hotpluggable,omitempty"`
}

// ConfigMapVolumeSource exposes a ConfigMap as a disk.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline"`
	Optional             *bool  `json:"optional,omitempty"`
	VolumeLabel          string `json:"volumeLabel,omitempty"`
}

// SecretVolumeSource exposes a Secret as a disk.
type SecretVolumeSource struct {
	SecretName  string `json:"secretName,omitempty"`
	Optional    *bool  `json:"optional,omitempty"`
	VolumeLabel string `json:"volumeLabel,omitempty"`
}

// DownwardAPIVolumeSource exposes pod fields as a disk.
type DownwardAPIVolumeSource struct {
	Fields      []DownwardAPIVolumeFile `json:"fields,omitempty"`
	VolumeLabel string                  `json:"volumeLabel,omitempty"`
}

// ServiceAccountVolumeSource exposes a service account token as a disk.
type ServiceAccountVolumeSource struct {
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
}

// DownwardMetricsVolumeSource exposes host metrics to the guest.
type DownwardMetricsVolumeSource struct{}

// MemoryDumpVolumeSource is the target of a memory dump.
type MemoryDumpVolumeSource struct {
	PersistentVolumeClaimVolumeSource `json:",inline"`
}

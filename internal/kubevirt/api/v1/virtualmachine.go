package v1

// VirtualMachine is kubevirt.io/api/core/v1.VirtualMachine as far as the
// validator reads it: metadata (annotations, labels, deletionTimestamp) and
// spec.template, the root of every rule path. The other VM-level fields
// (running, runStrategy, instancetype, preference, dataVolumeTemplates,
// status) are out of reach of rules and are not modelled.
type VirtualMachine struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       VirtualMachineSpec `json:"spec"`
}

// VirtualMachineSpec is the part of the VM spec the validator reads.
type VirtualMachineSpec struct {
	Template *VirtualMachineInstanceTemplateSpec `json:"template"`
}

// VirtualMachineInstanceTemplateSpec is the VM's spec.template.
type VirtualMachineInstanceTemplateSpec struct {
	ObjectMeta ObjectMeta                 `json:"metadata,omitempty"`
	Spec       VirtualMachineInstanceSpec `json:"spec,omitempty"`
}

// VirtualMachineInstanceSpec is the spec of the VM's instances.
type VirtualMachineInstanceSpec struct {
	PriorityClassName             string                     `json:"priorityClassName,omitempty"`
	Domain                        DomainSpec                 `json:"domain"`
	NodeSelector                  map[string]string          `json:"nodeSelector,omitempty"`
	Affinity                      *Affinity                  `json:"affinity,omitempty"`
	SchedulerName                 string                     `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration               `json:"tolerations,omitempty"`
	TopologySpreadConstraints     []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	EvictionStrategy              *EvictionStrategy          `json:"evictionStrategy,omitempty"`
	StartStrategy                 *StartStrategy             `json:"startStrategy,omitempty"`
	TerminationGracePeriodSeconds *int64                     `json:"terminationGracePeriodSeconds,omitempty"`
	Volumes                       []Volume                   `json:"volumes,omitempty"`
	ReadinessProbe                *Probe                     `json:"readinessProbe,omitempty"`
	LivenessProbe                 *Probe                     `json:"livenessProbe,omitempty"`
	Hostname                      string                     `json:"hostname,omitempty"`
	Subdomain                     string                     `json:"subdomain,omitempty"`
	Networks                      []Network                  `json:"networks,omitempty"`
	AccessCredentials             []AccessCredential         `json:"accessCredentials,omitempty"`
	Architecture                  string                     `json:"architecture,omitempty"`
	DNSPolicy                     DNSPolicy                  `json:"dnsPolicy,omitempty"`
	DNSConfig                     *PodDNSConfig              `json:"dnsConfig,omitempty"`
	ResourceClaims                []PodResourceClaim         `json:"resourceClaims,omitempty"`
}

// EvictionStrategy is the VMI's eviction strategy.
type EvictionStrategy string

// StartStrategy is the VMI's start strategy.
type StartStrategy string

// Probe is a VMI readiness or liveness probe.
type Probe struct {
	Handler             `json:",inline"`
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds      int32 `json:"timeoutSeconds,omitempty"`
	PeriodSeconds       int32 `json:"periodSeconds,omitempty"`
	SuccessThreshold    int32 `json:"successThreshold,omitempty"`
	FailureThreshold    int32 `json:"failureThreshold,omitempty"`
}

// Handler is the action of a probe.
type Handler struct {
	Exec           *ExecAction      `json:"exec,omitempty"`
	HTTPGet        *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket      *TCPSocketAction `json:"tcpSocket,omitempty"`
	GuestAgentPing *GuestAgentPing  `json:"guestAgentPing,omitempty"`
}

// GuestAgentPing probes the guest agent.
type GuestAgentPing struct{}

// Network is a network the VMI's interfaces connect to.
type Network struct {
	Name          string `json:"name"`
	NetworkSource `json:",inline"`
}

// NetworkSource says where a network comes from.
type NetworkSource struct {
	Pod    *PodNetwork    `json:"pod,omitempty"`
	Multus *MultusNetwork `json:"multus,omitempty"`
}

// PodNetwork is the pod network.
type PodNetwork struct {
	VMNetworkCIDR     string `json:"vmNetworkCIDR,omitempty"`
	VMIPv6NetworkCIDR string `json:"vmIPv6NetworkCIDR,omitempty"`
}

// MultusNetwork is a Multus network attachment.
type MultusNetwork struct {
	NetworkName string `json:"networkName"`
	Default     bool   `json:"default,omitempty"`
}

// AccessCredential injects SSH keys or passwords into the guest.
type AccessCredential struct {
	SSHPublicKey *SSHPublicKeyAccessCredential `json:"sshPublicKey,omitempty"`
	UserPassword *UserPasswordAccessCredential `json:"userPassword,omitempty"`
}

// SSHPublicKeyAccessCredential injects SSH public keys.
type SSHPublicKeyAccessCredential struct {
	Source            SSHPublicKeyAccessCredentialSource            `json:"source"`
	PropagationMethod SSHPublicKeyAccessCredentialPropagationMethod `json:"propagationMethod"`
}

// SSHPublicKeyAccessCredentialSource is where SSH keys come from.
type SSHPublicKeyAccessCredentialSource struct {
	Secret *AccessCredentialSecretSource `json:"secret,omitempty"`
}

// AccessCredentialSecretSource names a Secret.
type AccessCredentialSecretSource struct {
	SecretName string `json:"secretName"`
}

// SSHPublicKeyAccessCredentialPropagationMethod is how SSH keys reach the guest.
type SSHPublicKeyAccessCredentialPropagationMethod struct {
	ConfigDrive    *ConfigDriveSSHPublicKeyAccessCredentialPropagation    `json:"configDrive,omitempty"`
	NoCloud        *NoCloudSSHPublicKeyAccessCredentialPropagation        `json:"noCloud,omitempty"`
	QemuGuestAgent *QemuGuestAgentSSHPublicKeyAccessCredentialPropagation `json:"qemuGuestAgent,omitempty"`
}

// ConfigDriveSSHPublicKeyAccessCredentialPropagation uses cloud-init config drive.
type ConfigDriveSSHPublicKeyAccessCredentialPropagation struct{}

// NoCloudSSHPublicKeyAccessCredentialPropagation uses cloud-init NoCloud.
type NoCloudSSHPublicKeyAccessCredentialPropagation struct{}

// QemuGuestAgentSSHPublicKeyAccessCredentialPropagation uses the guest agent.
type QemuGuestAgentSSHPublicKeyAccessCredentialPropagation struct {
	Users []string `json:"users"`
}

// UserPasswordAccessCredential injects user passwords.
type UserPasswordAccessCredential struct {
	Source            UserPasswordAccessCredentialSource            `json:"source"`
	PropagationMethod UserPasswordAccessCredentialPropagationMethod `json:"propagationMethod"`
}

// UserPasswordAccessCredentialSource is where passwords come from.
type UserPasswordAccessCredentialSource struct {
	Secret *AccessCredentialSecretSource `json:"secret,omitempty"`
}

// UserPasswordAccessCredentialPropagationMethod is how passwords reach the guest.
type UserPasswordAccessCredentialPropagationMethod struct {
	QemuGuestAgent *QemuGuestAgentUserPasswordAccessCredentialPropagation `json:"qemuGuestAgent,omitempty"`
}

// QemuGuestAgentUserPasswordAccessCredentialPropagation uses the guest agent.
type QemuGuestAgentUserPasswordAccessCredentialPropagation struct{}

package v1

import "k8s.io/apimachinery/pkg/api/resource"

// DomainSpec is the virtual hardware of the VMI.
type DomainSpec struct {
	Resources       ResourceRequirements `json:"resources,omitempty"`
	CPU             *CPU                 `json:"cpu,omitempty"`
	Memory          *Memory              `json:"memory,omitempty"`
	Machine         *Machine             `json:"machine,omitempty"`
	Firmware        *Firmware            `json:"firmware,omitempty"`
	Clock           *Clock               `json:"clock,omitempty"`
	Features        *Features            `json:"features,omitempty"`
	Devices         Devices              `json:"devices"`
	IOThreadsPolicy *IOThreadsPolicy     `json:"ioThreadsPolicy,omitempty"`
	IOThreads       *DiskIOThreads       `json:"ioThreads,omitempty"`
	Chassis         *Chassis             `json:"chassis,omitempty"`
	LaunchSecurity  *LaunchSecurity      `json:"launchSecurity,omitempty"`
	RebootPolicy    *RebootPolicy        `json:"rebootPolicy,omitempty"`
}

// ResourceRequirements are the VMI's resource requests and limits.
type ResourceRequirements struct {
	Requests                ResourceList `json:"requests,omitempty"`
	Limits                  ResourceList `json:"limits,omitempty"`
	OvercommitGuestOverhead bool         `json:"overcommitGuestOverhead,omitempty"`
}

// CPU is the guest CPU topology and model.
type CPU struct {
	Cores                 uint32       `json:"cores,omitempty"`
	Sockets               uint32       `json:"sockets,omitempty"`
	MaxSockets            uint32       `json:"maxSockets,omitempty"`
	Threads               uint32       `json:"threads,omitempty"`
	Model                 string       `json:"model,omitempty"`
	Features              []CPUFeature `json:"features,omitempty"`
	DedicatedCPUPlacement bool         `json:"dedicatedCpuPlacement,omitempty"`
	NUMA                  *NUMA        `json:"numa,omitempty"`
	IsolateEmulatorThread bool         `json:"isolateEmulatorThread,omitempty"`
	Realtime              *Realtime    `json:"realtime,omitempty"`
}

// CPUFeature enables or disables one CPU feature.
type CPUFeature struct {
	Name   string `json:"name"`
	Policy string `json:"policy,omitempty"`
}

// NUMA is the guest NUMA topology.
type NUMA struct {
	GuestMappingPassthrough *NUMAGuestMappingPassthrough `json:"guestMappingPassthrough,omitempty"`
}

// NUMAGuestMappingPassthrough mirrors the host's NUMA topology.
type NUMAGuestMappingPassthrough struct{}

// Realtime tunes the VMI for real-time workloads.
type Realtime struct {
	Mask string `json:"mask,omitempty"`
}

// Memory is the guest memory.
type Memory struct {
	Hugepages *Hugepages         `json:"hugepages,omitempty"`
	Guest     *resource.Quantity `json:"guest,omitempty"`
	MaxGuest  *resource.Quantity `json:"maxGuest,omitempty"`
}

// Hugepages backs the guest memory with huge pages.
type Hugepages struct {
	PageSize string `json:"pageSize,omitempty"`
}

// Machine is the emulated machine type.
type Machine struct {
	Type string `json:"type"`
}

// Firmware is the guest firmware.
type Firmware struct {
	UUID       UID         `json:"uuid,omitempty"`
	Bootloader *Bootloader `json:"bootloader,omitempty"`
	Serial     string      `json:"serial,omitempty"`
	KernelBoot *KernelBoot `json:"kernelBoot,omitempty"`
	ACPI       *ACPI       `json:"acpi,omitempty"`
}

// Bootloader is BIOS or EFI.
type Bootloader struct {
	BIOS *BIOS `json:"bios,omitempty"`
	EFI  *EFI  `json:"efi,omitempty"`
}

// BIOS boots with SeaBIOS.
type BIOS struct {
	UseSerial *bool `json:"useSerial,omitempty"`
}

// EFI boots with OVMF.
type EFI struct {
	SecureBoot *bool `json:"secureBoot,omitempty"`
	Persistent *bool `json:"persistent,omitempty"`
}

// KernelBoot boots a kernel directly.
type KernelBoot struct {
	KernelArgs string               `json:"kernelArgs,omitempty"`
	Container  *KernelBootContainer `json:"container,omitempty"`
}

// KernelBootContainer holds the kernel and initrd.
type KernelBootContainer struct {
	Image           string     `json:"image"`
	ImagePullSecret string     `json:"imagePullSecret,omitempty"`
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	KernelPath      string     `json:"kernelPath,omitempty"`
	InitrdPath      string     `json:"initrdPath,omitempty"`
}

// ACPI holds ACPI tables.
type ACPI struct {
	SlicNameRef string `json:"slicNameRef,omitempty"`
	MsdmNameRef string `json:"msdmNameRef,omitempty"`
}

// Clock is the guest clock.
type Clock struct {
	ClockOffset `json:",inline"`
	Timer       *Timer `json:"timer,omitempty"`
}

// ClockOffset is UTC or a time zone.
type ClockOffset struct {
	UTC      *ClockOffsetUTC      `json:"utc,omitempty"`
	Timezone *ClockOffsetTimezone `json:"timezone,omitempty"`
}

// ClockOffsetUTC offsets the guest clock from UTC.
type ClockOffsetUTC struct {
	OffsetSeconds *int `json:"offsetSeconds,omitempty"`
}

// ClockOffsetTimezone is a time zone name.
type ClockOffsetTimezone string

// Timer holds the guest timers.
type Timer struct {
	HPET   *HPETTimer   `json:"hpet,omitempty"`
	KVM    *KVMTimer    `json:"kvm,omitempty"`
	PIT    *PITTimer    `json:"pit,omitempty"`
	RTC    *RTCTimer    `json:"rtc,omitempty"`
	Hyperv *HypervTimer `json:"hyperv,omitempty"`
}

// RTCTimer is the real-time clock.
type RTCTimer struct {
	TickPolicy RTCTickPolicy `json:"tickPolicy,omitempty"`
	Enabled    *bool         `json:"present,omitempty"`
	Track      RTCTimerTrack `json:"track,omitempty"`
}

// RTCTickPolicy is the RTC tick policy.
type RTCTickPolicy string

// RTCTimerTrack is what the RTC tracks.
type RTCTimerTrack string

// HPETTimer is the high-precision event timer.
type HPETTimer struct {
	TickPolicy HPETTickPolicy `json:"tickPolicy,omitempty"`
	Enabled    *bool          `json:"present,omitempty"`
}

// HPETTickPolicy is the HPET tick policy.
type HPETTickPolicy string

// PITTimer is the programmable interval timer.
type PITTimer struct {
	TickPolicy PITTickPolicy `json:"tickPolicy,omitempty"`
	Enabled    *bool         `json:"present,omitempty"`
}

// PITTickPolicy is the PIT tick policy.
type PITTickPolicy string

// KVMTimer is the KVM clock.
type KVMTimer struct {
	Enabled *bool `json:"present,omitempty"`
}

// HypervTimer is the Hyper-V reference clock.
type HypervTimer struct {
	Enabled *bool `json:"present,omitempty"`
}

// Features are hypervisor features exposed to the guest.
type Features struct {
	ACPI              FeatureState       `json:"acpi,omitempty"`
	APIC              *FeatureAPIC       `json:"apic,omitempty"`
	Hyperv            *FeatureHyperv     `json:"hyperv,omitempty"`
	HypervPassthrough *HyperVPassthrough `json:"hypervPassthrough,omitempty"`
	SMM               *FeatureState      `json:"smm,omitempty"`
	KVM               *FeatureKVM        `json:"kvm,omitempty"`
	Pvspinlock        *FeatureState      `json:"pvspinlock,omitempty"`
}

// FeatureState switches a feature on or off.
type FeatureState struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// FeatureAPIC is the APIC feature.
type FeatureAPIC struct {
	Enabled        *bool `json:"enabled,omitempty"`
	EndOfInterrupt bool  `json:"endOfInterrupt,omitempty"`
}

// FeatureSpinlocks is the Hyper-V spinlocks feature.
type FeatureSpinlocks struct {
	Enabled *bool   `json:"enabled,omitempty"`
	Retries *uint32 `json:"spinlocks,omitempty"`
}

// FeatureVendorID is the Hyper-V vendor id feature.
type FeatureVendorID struct {
	Enabled  *bool  `json:"enabled,omitempty"`
	VendorID string `json:"vendorid,omitempty"`
}

// FeatureHyperv holds the Hyper-V enlightenments.
type FeatureHyperv struct {
	Relaxed         *FeatureState     `json:"relaxed,omitempty"`
	VAPIC           *FeatureState     `json:"vapic,omitempty"`
	Spinlocks       *FeatureSpinlocks `json:"spinlocks,omitempty"`
	VPIndex         *FeatureState     `json:"vpindex,omitempty"`
	Runtime         *FeatureState     `json:"runtime,omitempty"`
	SyNIC           *FeatureState     `json:"synic,omitempty"`
	SyNICTimer      *SyNICTimer       `json:"synictimer,omitempty"`
	Reset           *FeatureState     `json:"reset,omitempty"`
	VendorID        *FeatureVendorID  `json:"vendorid,omitempty"`
	Frequencies     *FeatureState     `json:"frequencies,omitempty"`
	Reenlightenment *FeatureState     `json:"reenlightenment,omitempty"`
	TLBFlush        *TLBFlush         `json:"tlbflush,omitempty"`
	IPI             *FeatureState     `json:"ipi,omitempty"`
	EVMCS           *FeatureState     `json:"evmcs,omitempty"`
}

// SyNICTimer is the Hyper-V synthetic timer.
type SyNICTimer struct {
	Enabled *bool         `json:"enabled,omitempty"`
	Direct  *FeatureState `json:"direct,omitempty"`
}

// TLBFlush is the Hyper-V TLB flush enlightenment.
type TLBFlush struct {
	Enabled  *bool         `json:"enabled,omitempty"`
	Direct   *FeatureState `json:"direct,omitempty"`
	Extended *FeatureState `json:"extended,omitempty"`
}

// HyperVPassthrough passes every Hyper-V enlightenment through.
type HyperVPassthrough struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// FeatureKVM hides KVM from the guest.
type FeatureKVM struct {
	Hidden bool `json:"hidden,omitempty"`
}

// IOThreadsPolicy is shared or auto.
type IOThreadsPolicy string

// DiskIOThreads sizes the supplemental I/O thread pool.
type DiskIOThreads struct {
	SupplementalPoolThreadCount *uint32 `json:"supplementalPoolThreadCount,omitempty"`
}

// Chassis is the SMBIOS chassis information.
type Chassis struct {
	Manufacturer string `json:"manufacturer,omitempty"`
	Version      string `json:"version,omitempty"`
	Serial       string `json:"serial,omitempty"`
	Asset        string `json:"asset,omitempty"`
	Sku          string `json:"sku,omitempty"`
}

// LaunchSecurity configures confidential computing.
type LaunchSecurity struct {
	SEV *SEV    `json:"sev,omitempty"`
	SNP *SEVSNP `json:"snp,omitempty"`
	TDX *TDX    `json:"tdx,omitempty"`
}

// SEV is AMD Secure Encrypted Virtualization.
type SEV struct {
	Policy      *SEVPolicy      `json:"policy,omitempty"`
	Attestation *SEVAttestation `json:"attestation,omitempty"`
	Session     string          `json:"session,omitempty"`
	DHCert      string          `json:"dhCert,omitempty"`
}

// SEVPolicy is the SEV guest policy.
type SEVPolicy struct {
	EncryptedState *bool `json:"encryptedState,omitempty"`
}

// SEVAttestation enables SEV attestation.
type SEVAttestation struct{}

// SEVSNP is AMD SEV Secure Nested Paging.
type SEVSNP struct{}

// TDX is Intel Trust Domain Extensions.
type TDX struct{}

// RebootPolicy is Reboot or Terminate.
type RebootPolicy string

package v1

// Devices are the VMI's virtual devices.
type Devices struct {
	UseVirtioTransitional      *bool                     `json:"useVirtioTransitional,omitempty"`
	DisableHotplug             bool                      `json:"disableHotplug,omitempty"`
	Disks                      []Disk                    `json:"disks,omitempty"`
	Watchdog                   *Watchdog                 `json:"watchdog,omitempty"`
	Interfaces                 []Interface               `json:"interfaces,omitempty"`
	Inputs                     []Input                   `json:"inputs,omitempty"`
	AutoattachPodInterface     *bool                     `json:"autoattachPodInterface,omitempty"`
	AutoattachGraphicsDevice   *bool                     `json:"autoattachGraphicsDevice,omitempty"`
	AutoattachSerialConsole    *bool                     `json:"autoattachSerialConsole,omitempty"`
	LogSerialConsole           *bool                     `json:"logSerialConsole,omitempty"`
	AutoattachMemBalloon       *bool                     `json:"autoattachMemBalloon,omitempty"`
	AutoattachInputDevice      *bool                     `json:"autoattachInputDevice,omitempty"`
	AutoattachVSOCK            *bool                     `json:"autoattachVSOCK,omitempty"`
	Rng                        *Rng                      `json:"rng,omitempty"`
	BlockMultiQueue            *bool                     `json:"blockMultiQueue,omitempty"`
	NetworkInterfaceMultiQueue *bool                     `json:"networkInterfaceMultiqueue,omitempty"`
	GPUs                       []GPU                     `json:"gpus,omitempty"`
	DownwardMetrics            *DownwardMetrics          `json:"downwardMetrics,omitempty"`
	PanicDevices               []PanicDevice             `json:"panicDevices,omitempty"`
	Filesystems                []Filesystem              `json:"filesystems,omitempty"`
	HostDevices                []HostDevice              `json:"hostDevices,omitempty"`
	ClientPassthrough          *ClientPassthroughDevices `json:"clientPassthrough,omitempty"`
	Sound                      *SoundDevice              `json:"sound,omitempty"`
	TPM                        *TPMDevice                `json:"tpm,omitempty"`
	Video                      *VideoDevice              `json:"video,omitempty"`
}

// Disk attaches a volume to the guest.
type Disk struct {
	Name              string `json:"name"`
	DiskDevice        `json:",inline"`
	BootOrder         *uint            `json:"bootOrder,omitempty"`
	Serial            string           `json:"serial,omitempty"`
	DedicatedIOThread *bool            `json:"dedicatedIOThread,omitempty"`
	Cache             DriverCache      `json:"cache,omitempty"`
	IO                DriverIO         `json:"io,omitempty"`
	Tag               string           `json:"tag,omitempty"`
	BlockSize         *BlockSize       `json:"blockSize,omitempty"`
	Shareable         *bool            `json:"shareable,omitempty"`
	ErrorPolicy       *DiskErrorPolicy `json:"errorPolicy,omitempty"`
}

// DiskDevice says how a disk is presented: disk, LUN or CD-ROM.
type DiskDevice struct {
	Disk  *DiskTarget  `json:"disk,omitempty"`
	LUN   *LunTarget   `json:"lun,omitempty"`
	CDRom *CDRomTarget `json:"cdrom,omitempty"`
}

// DiskTarget is a plain disk.
type DiskTarget struct {
	Bus        DiskBus `json:"bus,omitempty"`
	ReadOnly   bool    `json:"readonly,omitempty"`
	PciAddress string  `json:"pciAddress,omitempty"`
}

// LunTarget is a SCSI LUN.
type LunTarget struct {
	Bus         DiskBus `json:"bus,omitempty"`
	ReadOnly    bool    `json:"readonly,omitempty"`
	Reservation bool    `json:"reservation,omitempty"`
}

// CDRomTarget is a CD-ROM drive.
type CDRomTarget struct {
	Bus      DiskBus   `json:"bus,omitempty"`
	ReadOnly *bool     `json:"readonly,omitempty"`
	Tray     TrayState `json:"tray,omitempty"`
}

// DiskBus is virtio, sata, scsi or usb.
type DiskBus string

// TrayState is open or closed.
type TrayState string

// TrayStateClosed is the CD-ROM default.
const TrayStateClosed TrayState = "closed"

// DriverCache is the disk cache mode.
type DriverCache string

// DriverIO is the disk I/O mode.
type DriverIO string

// DiskErrorPolicy is what to do on I/O errors.
type DiskErrorPolicy string

// BlockSize is the disk's block size.
type BlockSize struct {
	Custom      *CustomBlockSize `json:"custom,omitempty"`
	MatchVolume *FeatureState    `json:"matchVolume,omitempty"`
}

// CustomBlockSize sets the logical and physical block sizes.
type CustomBlockSize struct {
	Logical            uint  `json:"logical"`
	Physical           uint  `json:"physical"`
	DiscardGranularity *uint `json:"discardGranularity,omitempty"`
}

// Watchdog is a watchdog device.
type Watchdog struct {
	Name           string `json:"name"`
	WatchdogDevice `json:",inline"`
}

// WatchdogDevice is the watchdog model.
type WatchdogDevice struct {
	I6300ESB *I6300ESBWatchdog `json:"i6300esb,omitempty"`
	Diag288  *Diag288Watchdog  `json:"diag288,omitempty"`
}

// I6300ESBWatchdog is the Intel 6300ESB watchdog.
type I6300ESBWatchdog struct {
	Action WatchdogAction `json:"action,omitempty"`
}

// Diag288Watchdog is the s390x diag288 watchdog.
type Diag288Watchdog struct {
	Action WatchdogAction `json:"action,omitempty"`
}

// WatchdogAction is poweroff, reset or shutdown.
type WatchdogAction string

// WatchdogActionReset is the watchdog default.
const WatchdogActionReset WatchdogAction = "reset"

// Interface is a guest network interface.
type Interface struct {
	Name                   string `json:"name"`
	Model                  string `json:"model,omitempty"`
	InterfaceBindingMethod `json:",inline"`
	Binding                *PluginBinding `json:"binding,omitempty"`
	Ports                  []Port         `json:"ports,omitempty"`
	MacAddress             string         `json:"macAddress,omitempty"`
	BootOrder              *uint          `json:"bootOrder,omitempty"`
	PciAddress             string         `json:"pciAddress,omitempty"`
	DHCPOptions            *DHCPOptions   `json:"dhcpOptions,omitempty"`
	Tag                    string         `json:"tag,omitempty"`
	ACPIIndex              int            `json:"acpiIndex,omitempty"`
	State                  InterfaceState `json:"state,omitempty"`
}

// InterfaceBindingMethod says how the interface is connected.
type InterfaceBindingMethod struct {
	Bridge            *InterfaceBridge            `json:"bridge,omitempty"`
	DeprecatedSlirp   *DeprecatedInterfaceSlirp   `json:"slirp,omitempty"`
	Masquerade        *InterfaceMasquerade        `json:"masquerade,omitempty"`
	SRIOV             *InterfaceSRIOV             `json:"sriov,omitempty"`
	DeprecatedMacvtap *DeprecatedInterfaceMacvtap `json:"macvtap,omitempty"`
	DeprecatedPasst   *DeprecatedInterfacePasst   `json:"passt,omitempty"`
}

// InterfaceBridge connects through a bridge.
type InterfaceBridge struct{}

// DeprecatedInterfaceSlirp connects through user-mode networking.
type DeprecatedInterfaceSlirp struct{}

// InterfaceMasquerade connects through NAT.
type InterfaceMasquerade struct{}

// InterfaceSRIOV passes an SR-IOV function through.
type InterfaceSRIOV struct{}

// DeprecatedInterfaceMacvtap connects through macvtap.
type DeprecatedInterfaceMacvtap struct{}

// DeprecatedInterfacePasst connects through passt.
type DeprecatedInterfacePasst struct{}

// PluginBinding names a network binding plugin.
type PluginBinding struct {
	Name string `json:"name"`
}

// InterfaceState is up, down or absent.
type InterfaceState string

// Port is a port forwarded to the guest.
type Port struct {
	Name     string `json:"name,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Port     int32  `json:"port"`
}

// DHCPOptions are extra DHCP options for the guest.
type DHCPOptions struct {
	BootFileName   string               `json:"bootFileName,omitempty"`
	TFTPServerName string               `json:"tftpServerName,omitempty"`
	NTPServers     []string             `json:"ntpServers,omitempty"`
	PrivateOptions []DHCPPrivateOptions `json:"privateOptions,omitempty"`
}

// DHCPPrivateOptions is one private DHCP option.
type DHCPPrivateOptions struct {
	Option int    `json:"option"`
	Value  string `json:"value"`
}

// Input is a keyboard, mouse or tablet.
type Input struct {
	Bus  InputBus  `json:"bus,omitempty"`
	Type InputType `json:"type"`
	Name string    `json:"name"`
}

// InputBus is usb or virtio.
type InputBus string

// InputType is tablet or keyboard.
type InputType string

// Rng is a virtio random number generator.
type Rng struct{}

// GPU passes a GPU through.
type GPU struct {
	Name              string        `json:"name"`
	DeviceName        string        `json:"deviceName,omitempty"`
	VirtualGPUOptions *VGPUOptions  `json:"virtualGPUOptions,omitempty"`
	Tag               string        `json:"tag,omitempty"`
	ClaimRequest      *ClaimRequest `json:"claimRequest,omitempty"`
}

// VGPUOptions tunes a virtual GPU.
type VGPUOptions struct {
	Display *VGPUDisplayOptions `json:"display,omitempty"`
}

// VGPUDisplayOptions configures a vGPU display.
type VGPUDisplayOptions struct {
	Enabled *bool         `json:"enabled,omitempty"`
	RamFB   *FeatureState `json:"ramFB,omitempty"`
}

// ClaimRequest names a dynamic resource claim.
type ClaimRequest struct {
	ClaimName   *string `json:"claimName,omitempty"`
	RequestName *string `json:"requestName,omitempty"`
}

// DownwardMetrics exposes host metrics through a virtio-serial port.
type DownwardMetrics struct{}

// PanicDevice is a guest panic notifier.
type PanicDevice struct {
	Model *PanicDeviceModel `json:"model,omitempty"`
}

// PanicDeviceModel is hyperv, isa or pvpanic.
type PanicDeviceModel string

// Filesystem shares a volume through virtiofs.
type Filesystem struct {
	Name     string              `json:"name"`
	Virtiofs *FilesystemVirtiofs `json:"virtiofs"`
}

// FilesystemVirtiofs selects virtiofs.
type FilesystemVirtiofs struct{}

// HostDevice passes a host device through.
type HostDevice struct {
	Name         string        `json:"name"`
	DeviceName   string        `json:"deviceName,omitempty"`
	Tag          string        `json:"tag,omitempty"`
	ClaimRequest *ClaimRequest `json:"claimRequest,omitempty"`
}

// ClientPassthroughDevices passes client USB devices through.
type ClientPassthroughDevices struct{}

// SoundDevice is an emulated sound card.
type SoundDevice struct {
	Name  string `json:"name"`
	Model string `json:"model,omitempty"`
}

// TPMDevice is an emulated TPM.
type TPMDevice struct {
	Enabled    *bool `json:"enabled,omitempty"`
	Persistent *bool `json:"persistent,omitempty"`
}

// VideoDevice is the video card.
type VideoDevice struct {
	Type string `json:"type,omitempty"`
}

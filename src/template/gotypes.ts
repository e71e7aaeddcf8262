/**
 * A small model of the Go types spire-controller-manager hands to its templates.
 *
 * The data stays in Kubernetes JSON form; Go templates address it with Go
 * field names. Each struct type therefore knows its Go fields, their JSON keys
 * and their types, so that field access, zero values, printing and the `if`
 * truth test can follow what Go's reflection would see.
 *
 * Type names are spelled the way Go's `reflect.Type.String()` spells them,
 * because they appear in error messages (`can't evaluate field Foo in type
 * *v1.ObjectMeta`).
 */

export type GoType = BasicType | PtrType | SliceType | MapType | StructType;

export interface BasicType {
  readonly kind: 'string' | 'int' | 'uint' | 'float' | 'bool';
  readonly name: string;
}

export interface PtrType {
  readonly kind: 'ptr';
  readonly name: string;
  readonly elem: GoType;
}

export interface SliceType {
  readonly kind: 'slice';
  readonly name: string;
  readonly elem: GoType;
}

export interface MapType {
  readonly kind: 'map';
  readonly name: string;
  readonly key: GoType;
  readonly elem: GoType;
}

export interface StructType {
  readonly kind: 'struct';
  readonly name: string;
  /** Undefined when the struct's fields are not modelled (its value can still be tested and passed around). */
  readonly fields: ReadonlyMap<string, GoField> | undefined;
  /** Zero-argument Go methods that just return a field: method name -> Go field name. */
  readonly getters: ReadonlyMap<string, string>;
  /** Other Go methods of the type, known so that calling them fails with a precise message. */
  readonly methods: ReadonlySet<string>;
  /** Set when the type prints through a String() method of its own. */
  readonly stringer?: 'time';
}

export interface GoField {
  readonly name: string;
  /** JSON key holding the field; unused for inline (embedded) fields. */
  readonly json: string;
  readonly type: GoType;
  /** Embedded with `json:",inline"`: the field's value is the enclosing JSON object itself. */
  readonly inline: boolean;
}

function basic(kind: BasicType['kind'], name: string): BasicType {
  return { kind, name };
}

export const STRING = basic('string', 'string');
export const INT = basic('int', 'int');
export const INT32 = basic('int', 'int32');
export const INT64 = basic('int', 'int64');
export const UINT8 = basic('uint', 'uint8');
export const FLOAT64 = basic('float', 'float64');
export const BOOL = basic('bool', 'bool');

function named(kind: 'string', name: string): BasicType {
  return basic(kind, name);
}

export function ptrTo(elem: GoType): PtrType {
  return { kind: 'ptr', name: `*${elem.name}`, elem };
}

export function sliceOf(elem: GoType): SliceType {
  return { kind: 'slice', name: `[]${elem.name}`, elem };
}

export function mapOf(key: GoType, elem: GoType, name = `map[${key.name}]${elem.name}`): MapType {
  return { kind: 'map', name, key, elem };
}

/**
 * Go field name -> Kubernetes JSON key: lower-case the leading run of capitals,
 * except that when the run is longer than one letter and a lower-case letter
 * follows, the run's last capital starts the next word and stays
 * (`UID`->`uid`, `DNSPolicy`->`dnsPolicy`, `PodCIDR`->`podCIDR`, `APIVersion`->`apiVersion`).
 * The few fields whose JSON tag breaks the rule are spelled out where they are declared.
 */
export function goFieldToJsonKey(goName: string): string {
  let run = 0;
  while (run < goName.length && isAsciiUpper(goName.charCodeAt(run))) run++;
  if (run === 0) return goName;
  if (run === goName.length) return goName.toLowerCase();
  if (run > 1 && isAsciiLower(goName.charCodeAt(run))) run--;
  return goName.slice(0, run).toLowerCase() + goName.slice(run);
}

function isAsciiUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

function isAsciiLower(c: number): boolean {
  return c >= 97 && c <= 122;
}

/** [Go name, type, options]; `json` overrides the derived key, `inline` marks an embedded struct. */
type FieldSpec = readonly [string, GoType, { json?: string; inline?: boolean }?];

interface StructSpec {
  getters?: Readonly<Record<string, string>>;
  methods?: readonly string[];
  stringer?: 'time';
}

function struct(name: string, fields: readonly FieldSpec[] | undefined, spec: StructSpec = {}): StructType {
  let table: Map<string, GoField> | undefined;
  if (fields !== undefined) {
    table = new Map();
    for (const [goName, type, opts] of fields) {
      const inline = opts?.inline === true;
      table.set(goName, { name: goName, json: opts?.json ?? goFieldToJsonKey(goName), type, inline });
      // Go promotes the fields of an embedded struct; JSON inlines them, so they read from the same object.
      if (inline && type.kind === 'struct' && type.fields !== undefined) {
        for (const [promoted, field] of type.fields) {
          if (!table.has(promoted)) table.set(promoted, field);
        }
      }
    }
  }
  return {
    kind: 'struct',
    name,
    fields: table,
    getters: new Map(Object.entries(spec.getters ?? {})),
    methods: new Set(spec.methods ?? []),
    ...(spec.stringer === undefined ? {} : { stringer: spec.stringer }),
  };
}

/** A struct whose fields spire-reconciler does not model. */
function opaque(name: string, methods: readonly string[] = GENERATED_METHODS): StructType {
  return struct(name, undefined, { methods });
}

/** Methods that code generation gives every Kubernetes API struct. */
const GENERATED_METHODS: readonly string[] = [
  'DeepCopy',
  'DeepCopyInto',
  'Descriptor',
  'Marshal',
  'MarshalTo',
  'MarshalToSizedBuffer',
  'ProtoMessage',
  'Reset',
  'Size',
  'String',
  'SwaggerDoc',
  'Unmarshal',
];

// time.Time's exported methods; metav1.Time promotes them and adds a few of its own.
const TIME_METHODS: readonly string[] = [
  'Add', 'AddDate', 'After', 'AppendBinary', 'AppendFormat', 'AppendText', 'Before', 'Clock', 'Compare',
  'Date', 'Day', 'Equal', 'Format', 'GoString', 'GobDecode', 'GobEncode', 'Hour', 'ISOWeek', 'In', 'IsDST',
  'IsZero', 'Local', 'Location', 'MarshalBinary', 'MarshalJSON', 'MarshalText', 'Minute', 'Month',
  'Nanosecond', 'Round', 'Second', 'String', 'Sub', 'Truncate', 'UTC', 'Unix', 'UnixMicro', 'UnixMilli',
  'UnixNano', 'UnmarshalBinary', 'UnmarshalJSON', 'UnmarshalText', 'Weekday', 'Year', 'YearDay', 'Zone',
  'ZoneBounds',
];

// ---- apimachinery ----

export const UID = named('string', 'types.UID');

const GO_TIME = struct('time.Time', [], { methods: TIME_METHODS, stringer: 'time' });

export const TIME = struct('v1.Time', [['Time', GO_TIME, { inline: true }]], {
  methods: [
    ...TIME_METHODS,
    'DeepCopyInto',
    'Fuzz',
    'MarshalCBOR',
    'MarshalQueryParameter',
    'ProtoTime',
    'Rfc3339Copy',
    'ToUnstructured',
    'UnmarshalCBOR',
    'UnmarshalQueryParameter',
    'Marshal',
    'MarshalTo',
    'Size',
    'Unmarshal',
    'Descriptor',
    'ProtoMessage',
    'Reset',
  ],
  stringer: 'time',
});

const OWNER_REFERENCE = struct('v1.OwnerReference', [
  ['APIVersion', STRING],
  ['Kind', STRING],
  ['Name', STRING],
  ['UID', UID],
  ['Controller', ptrTo(BOOL)],
  ['BlockOwnerDeletion', ptrTo(BOOL)],
], { methods: GENERATED_METHODS });

const MANAGED_FIELDS_ENTRY = struct('v1.ManagedFieldsEntry', [
  ['Manager', STRING],
  ['Operation', named('string', 'v1.ManagedFieldsOperationType')],
  ['APIVersion', STRING],
  ['Time', ptrTo(TIME)],
  ['FieldsType', STRING],
  ['FieldsV1', ptrTo(opaque('v1.FieldsV1'))],
  ['Subresource', STRING],
], { methods: GENERATED_METHODS });

const STRING_MAP = mapOf(STRING, STRING);

/** metav1.ObjectMeta: the Go type behind .PodMeta and .NodeMeta. */
export const OBJECT_META = struct('v1.ObjectMeta', [
  ['Name', STRING],
  ['GenerateName', STRING],
  ['Namespace', STRING],
  ['SelfLink', STRING],
  ['UID', UID],
  ['ResourceVersion', STRING],
  ['Generation', INT64],
  ['CreationTimestamp', TIME],
  ['DeletionTimestamp', ptrTo(TIME)],
  ['DeletionGracePeriodSeconds', ptrTo(INT64)],
  ['Labels', STRING_MAP],
  ['Annotations', STRING_MAP],
  ['OwnerReferences', sliceOf(OWNER_REFERENCE)],
  ['Finalizers', sliceOf(STRING)],
  ['ManagedFields', sliceOf(MANAGED_FIELDS_ENTRY)],
], {
  // The metav1.Object accessors; their setters take arguments and so can't be used from a template.
  getters: {
    GetName: 'Name',
    GetGenerateName: 'GenerateName',
    GetNamespace: 'Namespace',
    GetSelfLink: 'SelfLink',
    GetUID: 'UID',
    GetResourceVersion: 'ResourceVersion',
    GetGeneration: 'Generation',
    GetCreationTimestamp: 'CreationTimestamp',
    GetDeletionTimestamp: 'DeletionTimestamp',
    GetDeletionGracePeriodSeconds: 'DeletionGracePeriodSeconds',
    GetLabels: 'Labels',
    GetAnnotations: 'Annotations',
    GetOwnerReferences: 'OwnerReferences',
    GetFinalizers: 'Finalizers',
    GetManagedFields: 'ManagedFields',
  },
  methods: [
    ...GENERATED_METHODS,
    'GetObjectMeta',
    'SetName', 'SetGenerateName', 'SetNamespace', 'SetSelfLink', 'SetUID', 'SetResourceVersion',
    'SetGeneration', 'SetCreationTimestamp', 'SetDeletionTimestamp', 'SetDeletionGracePeriodSeconds',
    'SetLabels', 'SetAnnotations', 'SetOwnerReferences', 'SetFinalizers', 'SetManagedFields',
  ],
});

// ---- core/v1: pod ----

const RESOURCE_NAME = named('string', 'v1.ResourceName');
const QUANTITY = struct('resource.Quantity', undefined, {
  methods: ['Add', 'AsApproximateFloat64', 'AsDec', 'AsInt64', 'CanonicalizeBytes', 'Cmp', 'CmpInt64', 'Copy',
    'DeepCopy', 'Equal', 'IsZero', 'MarshalCBOR', 'MarshalJSON', 'MilliValue', 'Neg', 'ScaledValue', 'Set',
    'SetMilli', 'SetScaled', 'Sign', 'String', 'Sub', 'ToDec', 'ToUnstructured', 'UnmarshalCBOR',
    'UnmarshalJSON', 'Value', 'AsCanonicalBytes', 'Marshal', 'MarshalTo', 'Size', 'Unmarshal', 'Descriptor',
    'ProtoMessage', 'Reset', 'Fuzz', 'OpenAPISchemaType', 'OpenAPISchemaFormat', 'RoundUp'],
});
const RESOURCE_LIST = mapOf(RESOURCE_NAME, QUANTITY, 'v1.ResourceList');

const RESOURCE_REQUIREMENTS = struct('v1.ResourceRequirements', [
  ['Limits', RESOURCE_LIST],
  ['Requests', RESOURCE_LIST],
  ['Claims', sliceOf(opaque('v1.ResourceClaim'))],
], { methods: GENERATED_METHODS });

const LOCAL_OBJECT_REFERENCE = struct('v1.LocalObjectReference', [['Name', STRING]], {
  methods: GENERATED_METHODS,
});

const CONTAINER_PORT = struct('v1.ContainerPort', [
  ['Name', STRING],
  ['HostPort', INT32],
  ['ContainerPort', INT32],
  ['Protocol', named('string', 'v1.Protocol')],
  ['HostIP', STRING],
], { methods: GENERATED_METHODS });

const ENV_VAR = struct('v1.EnvVar', [
  ['Name', STRING],
  ['Value', STRING],
  ['ValueFrom', ptrTo(opaque('v1.EnvVarSource'))],
], { methods: GENERATED_METHODS });

const VOLUME_MOUNT = struct('v1.VolumeMount', [
  ['Name', STRING],
  ['ReadOnly', BOOL],
  ['RecursiveReadOnly', ptrTo(named('string', 'v1.RecursiveReadOnlyMode'))],
  ['MountPath', STRING],
  ['SubPath', STRING],
  ['MountPropagation', ptrTo(named('string', 'v1.MountPropagationMode'))],
  ['SubPathExpr', STRING],
], { methods: GENERATED_METHODS });

// Fields shared by Container and EphemeralContainerCommon (same Go names and JSON keys).
const CONTAINER_FIELDS: readonly FieldSpec[] = [
  ['Name', STRING],
  ['Image', STRING],
  ['Command', sliceOf(STRING)],
  ['Args', sliceOf(STRING)],
  ['WorkingDir', STRING],
  ['Ports', sliceOf(CONTAINER_PORT)],
  ['EnvFrom', sliceOf(opaque('v1.EnvFromSource'))],
  ['Env', sliceOf(ENV_VAR)],
  ['Resources', RESOURCE_REQUIREMENTS],
  ['ResizePolicy', sliceOf(opaque('v1.ContainerResizePolicy'))],
  ['RestartPolicy', ptrTo(named('string', 'v1.ContainerRestartPolicy'))],
  ['RestartPolicyRules', sliceOf(opaque('v1.ContainerRestartRule'))],
  ['VolumeMounts', sliceOf(VOLUME_MOUNT)],
  ['VolumeDevices', sliceOf(opaque('v1.VolumeDevice'))],
  ['LivenessProbe', ptrTo(opaque('v1.Probe'))],
  ['ReadinessProbe', ptrTo(opaque('v1.Probe'))],
  ['StartupProbe', ptrTo(opaque('v1.Probe'))],
  ['Lifecycle', ptrTo(opaque('v1.Lifecycle'))],
  ['TerminationMessagePath', STRING],
  ['TerminationMessagePolicy', named('string', 'v1.TerminationMessagePolicy')],
  ['ImagePullPolicy', named('string', 'v1.PullPolicy')],
  ['SecurityContext', ptrTo(opaque('v1.SecurityContext'))],
  ['Stdin', BOOL],
  ['StdinOnce', BOOL],
  ['TTY', BOOL],
];

const CONTAINER = struct('v1.Container', CONTAINER_FIELDS, { methods: GENERATED_METHODS });

const EPHEMERAL_CONTAINER = struct('v1.EphemeralContainer', [
  ['EphemeralContainerCommon', struct('v1.EphemeralContainerCommon', CONTAINER_FIELDS, { methods: GENERATED_METHODS }), { inline: true }],
  ['TargetContainerName', STRING],
], { methods: GENERATED_METHODS });

const VOLUME_SOURCE_NAMES: readonly (readonly [string, string, string?])[] = [
  ['HostPath', 'v1.HostPathVolumeSource'],
  ['EmptyDir', 'v1.EmptyDirVolumeSource'],
  ['GCEPersistentDisk', 'v1.GCEPersistentDiskVolumeSource'],
  ['AWSElasticBlockStore', 'v1.AWSElasticBlockStoreVolumeSource'],
  ['GitRepo', 'v1.GitRepoVolumeSource'],
  ['Secret', 'v1.SecretVolumeSource'],
  ['NFS', 'v1.NFSVolumeSource'],
  ['ISCSI', 'v1.ISCSIVolumeSource'],
  ['Glusterfs', 'v1.GlusterfsVolumeSource'],
  ['PersistentVolumeClaim', 'v1.PersistentVolumeClaimVolumeSource'],
  ['RBD', 'v1.RBDVolumeSource'],
  ['FlexVolume', 'v1.FlexVolumeSource'],
  ['Cinder', 'v1.CinderVolumeSource'],
  ['CephFS', 'v1.CephFSVolumeSource', 'cephfs'],
  ['Flocker', 'v1.FlockerVolumeSource'],
  ['DownwardAPI', 'v1.DownwardAPIVolumeSource'],
  ['FC', 'v1.FCVolumeSource'],
  ['AzureFile', 'v1.AzureFileVolumeSource'],
  ['ConfigMap', 'v1.ConfigMapVolumeSource'],
  ['VsphereVolume', 'v1.VsphereVirtualDiskVolumeSource'],
  ['Quobyte', 'v1.QuobyteVolumeSource'],
  ['AzureDisk', 'v1.AzureDiskVolumeSource'],
  ['PhotonPersistentDisk', 'v1.PhotonPersistentDiskVolumeSource'],
  ['Projected', 'v1.ProjectedVolumeSource'],
  ['PortworxVolume', 'v1.PortworxVolumeSource'],
  ['ScaleIO', 'v1.ScaleIOVolumeSource'],
  ['StorageOS', 'v1.StorageOSVolumeSource', 'storageos'],
  ['CSI', 'v1.CSIVolumeSource'],
  ['Ephemeral', 'v1.EphemeralVolumeSource'],
  ['Image', 'v1.ImageVolumeSource'],
];

const VOLUME_SOURCE = struct(
  'v1.VolumeSource',
  VOLUME_SOURCE_NAMES.map(([goName, typeName, json]): FieldSpec => [
    goName,
    ptrTo(opaque(typeName)),
    json === undefined ? {} : { json },
  ]),
  { methods: GENERATED_METHODS },
);

const VOLUME = struct('v1.Volume', [
  ['Name', STRING],
  ['VolumeSource', VOLUME_SOURCE, { inline: true }],
], { methods: GENERATED_METHODS });

const TOLERATION = struct('v1.Toleration', [
  ['Key', STRING],
  ['Operator', named('string', 'v1.TolerationOperator')],
  ['Value', STRING],
  ['Effect', named('string', 'v1.TaintEffect')],
  ['TolerationSeconds', ptrTo(INT64)],
], { methods: GENERATED_METHODS });

const HOST_ALIAS = struct('v1.HostAlias', [
  ['IP', STRING],
  ['Hostnames', sliceOf(STRING)],
], { methods: GENERATED_METHODS });

const POD_DNS_CONFIG = struct('v1.PodDNSConfig', [
  ['Nameservers', sliceOf(STRING)],
  ['Searches', sliceOf(STRING)],
  ['Options', sliceOf(struct('v1.PodDNSConfigOption', [
    ['Name', STRING],
    ['Value', ptrTo(STRING)],
  ], { methods: GENERATED_METHODS }))],
], { methods: GENERATED_METHODS });

const POD_READINESS_GATE = struct('v1.PodReadinessGate', [
  ['ConditionType', named('string', 'v1.PodConditionType')],
], { methods: GENERATED_METHODS });

const POD_OS = struct('v1.PodOS', [['Name', named('string', 'v1.OSName')]], { methods: GENERATED_METHODS });

const POD_SCHEDULING_GATE = struct('v1.PodSchedulingGate', [['Name', STRING]], { methods: GENERATED_METHODS });

const POD_RESOURCE_CLAIM = struct('v1.PodResourceClaim', [
  ['Name', STRING],
  ['ResourceClaimName', ptrTo(STRING)],
  ['ResourceClaimTemplateName', ptrTo(STRING)],
], { methods: GENERATED_METHODS });

/** corev1.PodSpec: the Go type behind .PodSpec (every top-level field of k8s.io/api v0.34). */
export const POD_SPEC = struct('v1.PodSpec', [
  ['Volumes', sliceOf(VOLUME)],
  ['InitContainers', sliceOf(CONTAINER)],
  ['Containers', sliceOf(CONTAINER)],
  ['EphemeralContainers', sliceOf(EPHEMERAL_CONTAINER)],
  ['RestartPolicy', named('string', 'v1.RestartPolicy')],
  ['TerminationGracePeriodSeconds', ptrTo(INT64)],
  ['ActiveDeadlineSeconds', ptrTo(INT64)],
  ['DNSPolicy', named('string', 'v1.DNSPolicy')],
  ['NodeSelector', STRING_MAP],
  ['ServiceAccountName', STRING],
  ['DeprecatedServiceAccount', STRING, { json: 'serviceAccount' }],
  ['AutomountServiceAccountToken', ptrTo(BOOL)],
  ['NodeName', STRING],
  ['HostNetwork', BOOL],
  ['HostPID', BOOL],
  ['HostIPC', BOOL],
  ['ShareProcessNamespace', ptrTo(BOOL)],
  ['SecurityContext', ptrTo(opaque('v1.PodSecurityContext'))],
  ['ImagePullSecrets', sliceOf(LOCAL_OBJECT_REFERENCE)],
  ['Hostname', STRING],
  ['Subdomain', STRING],
  ['Affinity', ptrTo(opaque('v1.Affinity'))],
  ['SchedulerName', STRING],
  ['Tolerations', sliceOf(TOLERATION)],
  ['HostAliases', sliceOf(HOST_ALIAS)],
  ['PriorityClassName', STRING],
  ['Priority', ptrTo(INT32)],
  ['DNSConfig', ptrTo(POD_DNS_CONFIG)],
  ['ReadinessGates', sliceOf(POD_READINESS_GATE)],
  ['RuntimeClassName', ptrTo(STRING)],
  ['EnableServiceLinks', ptrTo(BOOL)],
  ['PreemptionPolicy', ptrTo(named('string', 'v1.PreemptionPolicy'))],
  ['Overhead', RESOURCE_LIST],
  ['TopologySpreadConstraints', sliceOf(opaque('v1.TopologySpreadConstraint'))],
  ['SetHostnameAsFQDN', ptrTo(BOOL)],
  ['OS', ptrTo(POD_OS)],
  ['HostUsers', ptrTo(BOOL)],
  ['SchedulingGates', sliceOf(POD_SCHEDULING_GATE)],
  ['ResourceClaims', sliceOf(POD_RESOURCE_CLAIM)],
  ['Resources', ptrTo(RESOURCE_REQUIREMENTS)],
  ['HostnameOverride', ptrTo(STRING)],
], { methods: GENERATED_METHODS });

// ---- core/v1: node ----

const TAINT = struct('v1.Taint', [
  ['Key', STRING],
  ['Value', STRING],
  ['Effect', named('string', 'v1.TaintEffect')],
  ['TimeAdded', ptrTo(TIME)],
], { methods: [...GENERATED_METHODS, 'MatchTaint', 'ToString'] });

/** corev1.NodeSpec: the Go type behind .NodeSpec. */
export const NODE_SPEC = struct('v1.NodeSpec', [
  ['PodCIDR', STRING],
  ['PodCIDRs', sliceOf(STRING)],
  ['ProviderID', STRING],
  ['Unschedulable', BOOL],
  ['Taints', sliceOf(TAINT)],
  ['ConfigSource', ptrTo(opaque('v1.NodeConfigSource'))],
  ['DoNotUseExternalID', STRING, { json: 'externalID' }],
], { methods: GENERATED_METHODS });

/**
 * spire-controller-manager's templateData, passed by pointer. The TypeScript
 * TemplateData object uses the Go field names as keys.
 */
export const TEMPLATE_DATA = ptrTo(struct('spireentry.templateData', [
  ['TrustDomain', STRING, { json: 'TrustDomain' }],
  ['ClusterName', STRING, { json: 'ClusterName' }],
  ['ClusterDomain', STRING, { json: 'ClusterDomain' }],
  ['PodMeta', ptrTo(OBJECT_META), { json: 'PodMeta' }],
  ['PodSpec', ptrTo(POD_SPEC), { json: 'PodSpec' }],
  ['NodeMeta', ptrTo(OBJECT_META), { json: 'NodeMeta' }],
  ['NodeSpec', ptrTo(NODE_SPEC), { json: 'NodeSpec' }],
]));

/**
 * The Kubernetes object shapes the engine reads, in their JSON form. Only the
 * fields we use are typed; templates may read any other field, so objects
 * keep everything else too.
 */
interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  resourceVersion?: string;
  generation?: number;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** A pod by namespace and name, as commands and the pod lane address one. */
export interface PodName {
  namespace: string;
  name: string;
}

export interface Pod extends KubeObject {
  spec?: { nodeName?: string; serviceAccountName?: string; [key: string]: unknown };
  status?: { phase?: string; [key: string]: unknown };
}

export interface Node extends KubeObject {
  spec?: Record<string, unknown>;
}

export type Namespace = KubeObject;

interface ObjectReference {
  kind?: string;
  uid?: string;
  name?: string;
  namespace?: string;
}

/** discovery.k8s.io/v1 EndpointSlice: the service name is the `kubernetes.io/service-name` label. */
export interface EndpointSlice extends KubeObject {
  endpoints?: { targetRef?: ObjectReference }[];
}

/** core/v1 Endpoints, for clusters without EndpointSlices; named after its service. */
export interface Endpoints extends KubeObject {
  subsets?: { addresses?: { targetRef?: ObjectReference }[]; notReadyAddresses?: { targetRef?: ObjectReference }[] }[];
}

interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

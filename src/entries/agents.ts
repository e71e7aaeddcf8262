import type { CompiledTemplate } from '../template/index.js';

/**
 * Which cluster's SPIRE agents a parent ID names, so that a controller
 * sharing its SPIRE server with other clusters can refuse to delete their
 * workloads' entries whatever their IDs say.
 */
export interface AgentAttribution {
  /** This controller's cluster. */
  readonly clusterName: string;
  /** The cluster whose agent the parent ID names, or undefined when it names none we can recognise. */
  clusterOf(parentId: string): string | undefined;
}

/** A parent ID shape: a fixed start, then the cluster name up to `end` ('' means to the end of the ID). */
interface Shape {
  start: string;
  end: string;
}

/**
 * SPIRE's Kubernetes node attestors name their agents
 * `spiffe://<td>/spire/agent/k8s_psat/<cluster>/<node UID>` (k8s_sat:
 * `.../k8s_sat/<cluster>/<agent UUID>`), whatever parent ID template the
 * controllers use.
 */
function attestorShapes(trustDomain: string): Shape[] {
  return ['k8s_psat', 'k8s_sat'].map((plugin) => ({ start: `spiffe://${trustDomain}/spire/agent/${plugin}/`, end: '/' }));
}

// A path segment no real cluster is called, to find where the template puts the cluster name.
const CLUSTER_MARK = 'cluster-name-mark-7f3a9c';
const NODE_MARK = 'node-mark-7f3a9c';

/**
 * The shape of our own parent ID template: rendered for a made-up node with
 * a marker as the cluster name, the text before the marker is the start,
 * the character after it the end. A template that puts node data before the
 * cluster name, or has none, gives no shape (the attestor shapes still apply).
 */
function templateShape(trustDomain: string, template: CompiledTemplate): Shape | undefined {
  let text: string;
  try {
    text = template.render({
      TrustDomain: trustDomain,
      ClusterName: CLUSTER_MARK,
      ClusterDomain: 'cluster.local',
      PodMeta: null,
      PodSpec: null,
      NodeMeta: { name: NODE_MARK, uid: NODE_MARK, labels: {}, annotations: {} },
      NodeSpec: {},
    });
  } catch {
    return undefined;
  }
  const at = text.indexOf(CLUSTER_MARK);
  if (at === -1) return undefined;
  const start = text.slice(0, at);
  if (start.includes(NODE_MARK) || !start.startsWith(`spiffe://${trustDomain}/`)) return undefined;
  return { start, end: text.charAt(at + CLUSTER_MARK.length) };
}

export function agentAttribution(trustDomain: string, clusterName: string, parentIdTemplate?: CompiledTemplate): AgentAttribution {
  const shapes = attestorShapes(trustDomain);
  const own = parentIdTemplate ? templateShape(trustDomain, parentIdTemplate) : undefined;
  if (own && !shapes.some((s) => s.start === own.start && s.end === own.end)) shapes.push(own);
  return {
    clusterName,
    clusterOf(parentId) {
      for (const s of shapes) {
        if (!parentId.startsWith(s.start)) continue;
        const stop = s.end === '' ? -1 : parentId.indexOf(s.end, s.start.length);
        const name = stop === -1 ? (s.end === '' ? parentId.slice(s.start.length) : '') : parentId.slice(s.start.length, stop);
        if (name !== '') return name;
      }
      return undefined;
    },
  };
}

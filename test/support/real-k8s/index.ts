/**
 * A real kube-apiserver and etcd for the `npm run test:real` lane. See
 * control-plane.ts; the binaries come from scripts/real-k8s/build.sh.
 */
export { realK8sBinaries, type RealK8sBinaries } from './binaries.js';
export { type ControlPlane, type ControlPlaneOptions, type ControlPlaneVersions, objectPath, startControlPlane } from './control-plane.js';

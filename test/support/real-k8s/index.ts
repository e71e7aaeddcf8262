/**
 * A real kube-apiserver and etcd for the `npm run test:real` lane, and with
 * the `controllers` option kube-controller-manager and kube-scheduler for the
 * e2e lane's cluster. See control-plane.ts; the binaries come from
 * scripts/real-k8s/build.sh.
 */
export { realK8sBinaries, type RealK8sBinaries } from './binaries.js';
export { CONTROLLERS, controllerBinaries } from './controllers.js';
export { type ControlPlane, type ControlPlaneOptions, type ControlPlaneVersions, objectPath, startControlPlane } from './control-plane.js';

import { execFileSync } from 'node:child_process';
import { realK8sBinaries } from '../support/real-k8s/binaries.js';

/** Names the binaries the lane runs against, as they report themselves, before any test starts. */
export default function setup(): void {
  const bins = realK8sBinaries();
  const apiserver = execFileSync(bins.kubeApiserver, ['--version'], { encoding: 'utf8' }).trim();
  const etcd = execFileSync(bins.etcd, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  console.log(`real API server lane: ${apiserver} (${bins.kubeApiserver}); ${etcd} (${bins.etcd})`);
}

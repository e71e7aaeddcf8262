/**
 * Child process: the other half of a cold start's floor. The controller must
 * list every pod before it can know every entry; this lists them exactly as
 * it does (paged, managedFields cut before parsing) and does nothing else.
 * Prints one JSON line: the time, this process's CPU seconds, and the
 * wall-clock moment it finished (for the list-and-push floor, see barrier.ts).
 */
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { listAll } from '../src/kube/rest.js';
import { barrier } from './barrier.js';

const kc = new KubeConfig();
kc.loadFromFile(process.argv[2] as string);
await barrier();
const cpu0 = process.cpuUsage();
const started = performance.now();
const list = await listAll(kc, '/api/v1/pods', { dropManagedFields: true });
const listMs = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ pods: list.items.length, listMs, cpuSeconds: (cpu.user + cpu.system) / 1e6, endAt: Date.now() }));

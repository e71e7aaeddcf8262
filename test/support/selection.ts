import { IgnoredNamespaces } from '../../src/api/index.js';
import { type SelectionSettings } from '../../src/entries/index.js';
import { DEFAULT_PARENT_ID_TEMPLATE } from '../../src/api/index.js';
import { compileTemplate } from '../../src/template/index.js';

/** Selection settings for tests: trust domain example.org, cluster demo, nothing ignored, no class; `parentIDTemplate` as Go template text. */
export function selectionSettings(over: Partial<Omit<SelectionSettings, 'parentIdTemplate'>> & { parentIDTemplate?: string } = {}): SelectionSettings {
  const { parentIDTemplate = DEFAULT_PARENT_ID_TEMPLATE, ...rest } = over;
  return {
    trustDomain: 'example.org',
    clusterName: 'demo',
    clusterDomain: 'cluster.local',
    parentIdTemplate: compileTemplate(parentIDTemplate),
    ignoreNamespaces: IgnoredNamespaces.none(),
    className: '',
    watchClassless: false,
    ...rest,
  };
}

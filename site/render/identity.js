// The run identity form: seed 004's linkage fields, sent to the module as
// options.run and written as given into profile_metadata.json. Remembered
// nowhere (no storage): the saved report carries them.
import { h } from './dom.js';

const FIELDS = [
  ['experiment_id', 'experiment id'], ['trial_id', 'trial id'], ['base_image', 'base image'],
  ['resource_class', 'resource class'], ['gpu_device_ids', 'GPU device ids', '0,1'],
  ['gpu_clocks_mhz', 'GPU clocks (MHz)'], ['preflight_passed', 'preflight passed'],
  ['server_flags', 'server flags'], ['benchmark_config_hash', 'benchmark config hash'],
  ['model_name', 'model name'], ['profile_stage', 'profile stage'],
];

/** A collapsed form with one input per field. */
export function identityForm() {
  const inputs = FIELDS.map(([name, label, placeholder]) => {
    const input = name === 'preflight_passed'
      ? h('select', { name }, h('option', { value: '' }, 'unknown'), h('option', { value: 'true' }, 'yes'), h('option', { value: 'false' }, 'no'))
      : h('input', { name, placeholder: placeholder ?? '', spellcheck: false, autocomplete: 'off', size: 14 });
    return h('label.idfield', label, ' ', input);
  });
  return h('details.identity', h('summary', 'run identity'), ...inputs);
}

/** The form's values as options.run; null when every field is empty. */
export function readIdentity(form) {
  const run = {};
  for (const el of form.querySelectorAll('[name]')) {
    const v = el.value.trim();
    if (!v) continue;
    if (el.name === 'gpu_device_ids') {
      const ids = v.split(',').map((s) => Number(s.trim()));
      if (ids.some((n) => !Number.isInteger(n) || n < 0)) throw new Error(`GPU device ids: "${v}" is not a comma-separated list of GPU indices`);
      run.gpu_device_ids = ids;
    } else if (el.name === 'gpu_clocks_mhz') {
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`GPU clocks: "${v}" is not a whole number of MHz`);
      run.gpu_clocks_mhz = n;
    } else if (el.name === 'preflight_passed') {
      run.preflight_passed = v === 'true';
    } else {
      run[el.name] = v;
    }
  }
  return Object.keys(run).length ? run : null;
}

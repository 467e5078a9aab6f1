/* A template's render form (`#/blueprints/ID/parameters`): a control per parameter; the rendered
   definition measured and fitted, and the most of an integer parameter that fits. */
import { api, codeView, el, everything, field, myProfiles, problemList, say, select } from './core.js';
import { fitBadge } from './catalog.js';
import { fitTable, requirementsView } from './blueprint.js';

function parameterControl(name, schema) {
  const common = { name, 'data-type': schema.type };
  const initial = schema.default !== undefined ? schema.default : schema.examples && schema.examples.length ? schema.examples[0] : undefined;
  if (schema.enum) {
    return select(schema.enum.map((v) => [JSON.stringify(v), String(v)]), initial === undefined ? undefined : JSON.stringify(initial), { ...common, 'data-enum': 'true' });
  }
  if (schema.type === 'boolean') return el('input', { ...common, type: 'checkbox', checked: Boolean(initial) });
  if (schema.type === 'integer' || schema.type === 'number') {
    return el('input', { ...common, type: 'number', value: initial === undefined ? '' : String(initial), min: schema.minimum, max: schema.maximum,
      step: schema.type === 'integer' ? '1' : 'any' });
  }
  const secret = schema.writeOnly;
  return el('input', { ...common, type: secret ? 'password' : 'text', autocomplete: secret ? 'new-password' : 'off',
    value: secret || initial === undefined ? '' : String(initial), maxlength: schema.maxLength,
    placeholder: schema['x-generate'] ? 'generated when left empty' : secret && initial !== undefined ? 'its default when left empty' : '' });
}

function valueOf(control) {
  if (control.dataset.enum) return JSON.parse(control.value);
  if (control.type === 'checkbox') return control.checked;
  if (control.value === '') return undefined; // its default, example or generated value
  if (control.dataset.type === 'integer') return Number.parseInt(control.value, 10);
  if (control.dataset.type === 'number') return Number(control.value);
  return control.value;
}

export async function parametersPage([id]) {
  const [{ data: bp }, profiles] = await Promise.all([api('GET', `/blueprints/${id}`), everything(myProfiles())]);
  const properties = (bp.parameters && bp.parameters.properties) || {};
  const required = new Set((bp.parameters && bp.parameters.required) || []);
  const controls = {};
  const output = el('div', { 'aria-live': 'polite' });
  const profile = select([['', 'No profile'], ...profiles.map((p) => [p.id, p.name || '(unnamed)'])],
    (profiles.find((p) => p.defaultProfile) || {}).id || '');
  const values = () => Object.fromEntries(Object.entries(controls).map(([name, c]) => [name, valueOf(c)]).filter(([, v]) => v !== undefined));

  async function render(maximize) {
    const body = { values: values() };
    if (profile.value) body.profile = profile.value;
    if (maximize) body.maximize = maximize;
    try {
      const { data } = await api('POST', `/blueprints/${id}/render`, { body });
      const shown = [];
      if (data.maximized) {
        const [name, most] = Object.entries(data.maximized)[0];
        if (most !== null) controls[name].value = String(most);
        shown.push(el('p', { class: 'ok' }, most === null ? `No value of ${name} fits this profile.` : `At most ${name} = ${most} fits this profile.`));
      }
      // The rendered text may hold secrets: it lives in this view only, never in storage or the URL.
      output.replaceChildren(...shown, el('h2', {}, 'Requirements of the render'), requirementsView(data.requirements),
        data.fit ? el('div', {}, el('h3', {}, 'Fit ', fitBadge(data.fit, (profiles.find((p) => p.id === profile.value) || {}).limits)),
          fitTable(data.fit, 'Against the chosen profile; its container defaults are written into the rendered definition')) : null,
        el('h2', {}, 'Rendered definition'), codeView(data.yml, new Set(), 'Rendered definition'));
    } catch (error) {
      output.replaceChildren(problemList(error));
    }
  }

  const rows = Object.entries(properties).map(([name, schema]) => {
    controls[name] = parameterControl(name, schema);
    const notes = [schema.description, schema.type, required.has(name) ? 'required' : null,
      schema.minimum !== undefined ? `at least ${schema.minimum}` : null, schema.maximum !== undefined ? `at most ${schema.maximum}` : null,
      schema['x-generate'] ? `generated (${schema['x-generate']}) when left empty` : null, schema.writeOnly ? 'secret: never shown again' : null].filter(Boolean).join(' · ');
    const most = schema.type === 'integer'
      ? el('button', { type: 'button', class: 'quiet', onclick: () => (profile.value ? render(name) : say('Choose a profile first.')) }, `Most ${name} that fits`) : null;
    return el('div', { class: 'field' }, field(schema.title || name, controls[name], notes), most);
  });
  const form = el('form', { class: 'grid2' }, rows, field('Profile to fit', profile),
    el('div', { class: 'actions wide' }, el('button', { type: 'submit' }, 'Render')));
  form.addEventListener('submit', (event) => { event.preventDefault(); render(null); });
  return el('section', {}, el('h1', {}, `Render ${bp.name || '(unnamed)'}`),
    el('p', {}, el('a', { href: `#/blueprints/${id}` }, 'Back to the blueprint')),
    rows.length ? null : el('p', { class: 'note' }, 'This blueprint declares no parameters: the render is its definition, measured and fitted.'),
    form, output);
}


// The view's one client script: draws the diagram with bpmn-js (markers or heat from the page's data block),
// renders Camunda Forms with form-js, and keeps the page live from /events without reloading it.
// Plain browser JavaScript, no build: every value reaches the DOM as text, never as markup.
(() => {
  const base = document.querySelector('meta[name="thresher-base"]')?.content ?? '';
  const subject = document.querySelector('meta[name="thresher-live"]')?.content ?? 'none';
  let viewer = null;
  let drawn = Promise.resolve();
  const forms = new Map();

  function readData(root) {
    const block = root.getElementById('thresher-data');
    return block ? JSON.parse(block.textContent) : null;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function drawDiagram(data) {
    const container = document.getElementById('diagram');
    if (!container || !data?.xml || !window.BpmnJS) return Promise.resolve();
    viewer = new window.BpmnJS({ container });
    return viewer.importXML(data.xml).then(
      () => {
        viewer.get('canvas').zoom('fit-viewport', 'auto');
        decorate(data);
        pickTargets();
        container.dataset.drawn = 'true';
      },
      (error) => {
        container.replaceWith(
          el('div', 'notice', `The diagram could not be drawn (${error.message}); the elements are listed below.`),
        );
        viewer = null;
      },
    );
  }

  /** On an instance page with a repair form, a click on an element picks it as the token's target. */
  function pickTargets() {
    const target = document.querySelector('form[data-action="modify"] select[name="activate"]');
    if (!viewer || !target) return;
    viewer.get('eventBus').on('element.click', (event) => {
      const id = event.element?.businessObject?.id;
      if (!id || ![...target.options].some((option) => option.value === id)) return;
      target.value = id;
      target.dispatchEvent(new Event('change'));
    });
  }

  const MARKERS = {
    completed: 'thresher-completed',
    taken: 'thresher-taken',
    active: 'thresher-active',
    incidents: 'thresher-incident',
  };

  /** Markers (an instance) or heat counts (a process) on the drawn diagram, replacing what was there. */
  function decorate(data) {
    if (!viewer || !data) return;
    const canvas = viewer.get('canvas');
    const overlays = viewer.get('overlays');
    const registry = viewer.get('elementRegistry');
    overlays.remove({ type: 'thresher' });
    for (const element of registry.getAll())
      for (const marker of Object.values(MARKERS)) canvas.removeMarker(element, marker);
    if (data.kind === 'instance') {
      for (const [kind, marker] of Object.entries(MARKERS)) {
        for (const id of data.markers[kind] ?? []) {
          if (!registry.get(id)) continue;
          canvas.addMarker(id, marker);
          if (kind === 'incidents')
            overlays.add(id, 'thresher', {
              position: { top: -12, right: 12 },
              html: el('span', 'badge-incident', '!'),
            });
        }
      }
    } else if (data.kind === 'process') {
      for (const [id, heat] of Object.entries(data.heat ?? {})) {
        if (!registry.get(id)) continue;
        const badge = el('div', 'heat');
        badge.dataset.element = id;
        if (heat.waiting > 0) badge.append(el('span', 'heat-waiting', heat.waiting));
        if (heat.passed > 0) badge.append(el('span', 'heat-passed', heat.passed));
        if (heat.incidents > 0) badge.append(el('span', 'heat-incidents', heat.incidents));
        if (badge.childElementCount > 0)
          overlays.add(id, 'thresher', { position: { bottom: 8, left: -8 }, html: badge });
      }
    }
  }

  /** Each task's Camunda Form, rendered into its Complete form; the form's data is what the task is completed with. */
  function renderForms(data) {
    if (!data?.forms || !window.FormViewer) return;
    for (const container of document.querySelectorAll('.camunda-form[data-form-for]')) {
      const taskId = container.dataset.formFor;
      const spec = data.forms[taskId];
      if (!spec || container.dataset.rendered) continue;
      container.dataset.rendered = 'true';
      window.FormViewer.createForm({ container, schema: spec.schema, data: spec.data ?? {} }).then(
        (form) => forms.set(taskId, form),
        (error) => container.replaceWith(el('p', 'error', `The form could not be shown: ${error.message}`)),
      );
    }
  }

  document.addEventListener('submit', (event) => {
    const target = event.target;
    if (!(target instanceof HTMLFormElement)) return;
    if (target.dataset.confirm && !window.confirm(target.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    // A field that must hold JSON is checked before it is sent: the form stays, saying what is wrong.
    for (const field of target.querySelectorAll('[data-json]')) {
      let problem = '';
      try {
        JSON.parse(field.value);
      } catch (error) {
        problem = `not JSON: ${error.message}`;
      }
      field.setCustomValidity(problem);
      const note = target.querySelector('.json-error');
      if (note) note.textContent = problem;
      if (problem) {
        event.preventDefault();
        field.reportValidity();
        return;
      }
    }
    const formFor = target.querySelector('.camunda-form[data-form-for]');
    const form = formFor && forms.get(formFor.dataset.formFor);
    if (!form) return;
    const { data, errors } = form.submit();
    if (Object.keys(errors).length > 0) {
      event.preventDefault();
      return;
    }
    target.querySelector('input[name="variables"]').value = JSON.stringify(data);
  });

  // A form someone typed into is theirs: a live update leaves its section as it is while it is still there.
  document.addEventListener('input', (event) => {
    // A JSON field changed is checked again when sent: until then the browser must not hold it invalid.
    if (event.target.dataset?.json !== undefined) event.target.setCustomValidity('');
    const section = event.target.closest?.('[data-task], [data-subscription], [data-ad-hoc], [data-scope-edit]');
    if (section) section.dataset.dirty = 'true';
  });

  let refreshing = false;
  let again = false;
  let updates = 0;

  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      const response = await fetch(location.href, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
      if (!response.ok) return;
      const next = new DOMParser().parseFromString(await response.text(), 'text/html');
      const content = next.getElementById('content');
      const current = document.getElementById('content');
      if (!content || !current) return;
      const diagram = document.getElementById('diagram');
      const placeholder = content.querySelector('#diagram');
      if (diagram && placeholder) placeholder.replaceWith(diagram);
      for (const dirty of current.querySelectorAll('[data-dirty]')) {
        const key = ['task', 'subscription', 'adHoc', 'scopeEdit'].find((name) => dirty.dataset[name] !== undefined);
        const twin =
          key && [...content.querySelectorAll('*')].find((node) => node.dataset?.[key] === dirty.dataset[key]);
        if (twin) twin.replaceWith(dirty);
      }
      current.replaceChildren(...content.childNodes);
      const data = readData(next);
      await drawn;
      if (!viewer && data && data.xml) drawn = drawDiagram(data);
      else decorate(data);
      renderForms(data);
      document.body.dataset.updates = String(++updates);
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  }

  function connect() {
    if (subject === 'none' || !window.EventSource) return;
    const state = document.getElementById('live-state');
    const source = new EventSource(`${base}/events?subject=${encodeURIComponent(subject)}`);
    source.addEventListener('open', () => state?.classList.add('on'));
    source.addEventListener('error', () => state?.classList.remove('on'));
    source.addEventListener('change', () => void refresh());
  }

  // The notice of what an action did is shown once: a reload or a live update does not repeat it.
  const url = new URL(location.href);
  if (url.searchParams.has('done')) {
    url.searchParams.delete('done');
    url.searchParams.delete('sig');
    history.replaceState(null, '', url.pathname + url.search);
  }

  /**
   * A DMN model (dmn-js): a decision's table with the rules that matched marked (`open`, `matched`), or the file's
   * requirements graph.
   */
  function drawDmn(data) {
    const container = document.getElementById('dmn');
    if (!container || !data?.dmn || !window.DmnJS) return Promise.resolve();
    const dmn = new window.DmnJS({ container });
    return dmn.importXML(data.dmn).then(
      () => {
        const views = dmn.getViews();
        const decisions = views.filter((view) => view.type !== 'drd');
        const wanted =
          data.kind === 'decision'
            ? decisions.find((view) => view.element.id === data.open)
            : data.diagram
              ? views.find((view) => view.type === 'drd')
              : decisions[0];
        const nav = document.getElementById('dmn-views');
        const graph = views.find((view) => view.type === 'drd');
        if (nav && graph && data.diagram) {
          const button = el('button', 'dmn-view', 'Requirements graph');
          button.type = 'button';
          button.dataset.drd = 'true';
          button.addEventListener('click', () => dmn.open(graph));
          nav.append(button);
        }
        for (const view of nav ? decisions : []) {
          const button = el('button', 'dmn-view', view.name || view.element.id);
          button.type = 'button';
          button.dataset.decision = view.element.id;
          button.addEventListener('click', () => dmn.open(view));
          nav.append(button);
        }
        const shown = wanted ? dmn.open(wanted) : Promise.resolve();
        return Promise.resolve(shown).then(() => {
          const matched = new Set(data.matched ?? []);
          for (const cell of container.querySelectorAll('[data-row-id]')) {
            if (matched.has(cell.dataset.rowId)) cell.classList.add('thresher-matched');
          }
          container.dataset.drawn = 'true';
        });
      },
      (error) => {
        container.replaceWith(el('div', 'notice', `The DMN model could not be drawn (${error.message}).`));
      },
    );
  }

  const data = readData(document);
  drawn = data?.dmn ? drawDmn(data) : drawDiagram(data);
  renderForms(data);
  connect();
})();

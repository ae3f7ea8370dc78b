// What the report page and the viewer's index both use to build the page: elements made with text
// nodes only, so no text from a run is ever parsed as HTML.
(() => {
  /** Makes an element; strings become text nodes. */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
    }
    return node;
  }

  window.longhaulDom = { el };
})();

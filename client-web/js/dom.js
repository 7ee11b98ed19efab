// A tiny DOM builder for the views: h('div', {class: 'x', onclick: f}, child, …). Strings become text
// nodes (never HTML), so chat lines and usernames cannot inject markup.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'value') node.value = value;
    else if (key === 'checked') node.checked = value;
    // Through the CSSOM: the server's Content-Security-Policy refuses inline style attributes.
    else if (key === 'style') node.style.cssText = value;
    else node.setAttribute(key, value === true ? '' : value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * A player's name, isolated from the text around it: names may be in any script, and a right-to-left
 * one (محمد) would otherwise reorder what follows it ("محمد (3k)"). `<bdi>` isolates it and takes
 * its direction from the name itself; its text is the name alone.
 */
export function userName(name) {
  return h('bdi', { class: 'username' }, name);
}

/** Replace a node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

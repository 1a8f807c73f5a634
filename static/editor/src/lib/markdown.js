// A note's markdown as HTML that is safe to put in the page: markdown-it with raw HTML off
// (`<img onerror>` comes out as text), no images (a note must not load what it names), links
// only to http(s), mailto or a relative address (never `javascript:` or `data:`), opened in a
// new tab without the opener, and no `style` attributes (the page's CSP refuses them).

import MarkdownIt from "markdown-it";

const SAFE_LINK = /^(https?:|mailto:|[^:/?#]*([/?#]|$))/i;

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
markdown.disable("image");
markdown.validateLink = (url) => SAFE_LINK.test(url.trim());
markdown.core.ruler.push("no_style_attributes", (state) => {
  for (const token of state.tokens) {
    for (const child of [token, ...(token.children ?? [])]) {
      if (child.attrs) child.attrs = child.attrs.filter(([name]) => name !== "style");
    }
  }
});
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index].attrSet("target", "_blank");
  tokens[index].attrSet("rel", "noopener noreferrer nofollow");
  return self.renderToken(tokens, index, options);
};

/** The HTML of a note's markdown `text`. */
export function renderMarkdown(text) {
  return markdown.render(text);
}

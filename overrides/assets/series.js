// Runs once Material has put the page together (document$ is Material's page-load signal).
document$.subscribe(() => {
  // Accessible names for parts of Material's page that have none (axe-core: "label", "aria-dialog-name"):
  // the hidden toggles of the navigation drawer and of search, and the search dialog.
  // Material's unnamed navigation landmarks get names of their own (axe-core: "landmark-unique").
  for (const [selector, name] of [["#__drawer", "导航"], ["#__search", "搜索"], [".md-search[role=dialog]", "搜索"],
                                  ["nav.md-tags", "标签"]]) {
    for (const element of document.querySelectorAll(selector)) element.setAttribute("aria-label", name);
  }
  // Material's skip link goes to the first heading of the table of contents, past a title the post header
  // writes: it goes to that title.
  const title = document.getElementById("series-title");
  if (title) document.querySelector(".md-skip")?.setAttribute("href", "#series-title");
  // A table wider than the page scrolls inside Material's wrapper: the wrapper takes keyboard focus, so the
  // hidden part can be reached without a mouse (axe-core: "scrollable-region-focusable").
  for (const wrapper of document.querySelectorAll(".md-typeset__scrollwrap")) {
    if (wrapper.scrollWidth > wrapper.clientWidth) {
      wrapper.setAttribute("tabindex", "0");
      wrapper.setAttribute("role", "region");
      wrapper.setAttribute("aria-label", "可横向滚动的表格");
    }
  }
});

// The palette toggle (overrides/partials/palette.html; the scheme is set as the header is parsed): a click on its
// label, or Enter as in Material, switches to the next scheme and keeps the choice where Material keeps it; a
// reader who never chose follows their system's preference as it changes. As in Material, the body is marked as
// switching meanwhile (no colour fades), and the browser's bar takes the header's colour.
function browserBar() {
  const header = getComputedStyle(document.querySelector(".md-header")).backgroundColor;
  const hex = header.match(/\d+/g).slice(0, 3).map(c => (+c).toString(16).padStart(2, "0"));
  seriesPalette.meta("theme-color").content = `#${hex.join("")}`;
}
function switchPalette(index, chosen) {
  document.body.setAttribute("data-md-color-switching", "");
  const palette = seriesPalette(index);
  if (chosen) __md_set("__palette", palette);
  browserBar();  // reads the new colours, with no fade
  document.body.removeAttribute("data-md-color-switching");
}
const palette = document.querySelector("form[data-series-palette]");
if (palette) {
  document$.subscribe(browserBar);  // once Material has laid the page out: no style read before
  const inputs = [...palette.querySelectorAll("input")];
  for (const input of inputs) {
    input.addEventListener("change", () => switchPalette(inputs.indexOf(input), true));
    matchMedia(input.dataset.mdColorMedia).addEventListener("change", event => {
      if (event.matches && !seriesPalette.chosen()) switchPalette(inputs.indexOf(input), false);
    });
  }
  palette.addEventListener("keydown", event => {
    if (event.key !== "Enter") return;
    const next = inputs[(seriesPalette.index + 1) % inputs.length];
    next.click();
    next.focus();
  });
}

// Source pages and script pages, as on GitHub: a click on a line's number links the line (#L<n>); a shift-click
// links the lines from the one linked before (#L<a>-L<b>); the control under the marked lines copies the
// address. Addresses are read tolerantly: #l12, #L20-L12 and #L12-20 mark L12 to L20. (The lines have the ids
// L<n>, and each range a post quotes an element with the id L<a>-L<b>: those addresses scroll without script.)
const LINES = /^#l(\d+)(?:-l?(\d+))?$/i;
function markedRange() {
  const lines = location.hash.match(LINES);
  if (!lines) return null;
  const count = document.querySelectorAll(".series-src__chunk > span").length;  // no more lines than it has
  const [a, b] = [Number(lines[1]), Number(lines[2] || lines[1])];
  if (Math.min(a, b) < 1 || Math.min(a, b) > count) return null;  // no such line
  return [Math.min(a, b), Math.min(Math.max(a, b), count)];
}
let permalink = null;  // the copy control, made once a page
function markLines({scroll = true} = {}) {
  if (!document.querySelector(".series-src")) return;
  for (const marked of document.querySelectorAll(".series-src__marked")) marked.classList.remove("series-src__marked");
  permalink?.remove();
  const range = markedRange();
  if (!range) return;
  const [first, last] = range;
  const canonical = first === last ? `#L${first}` : `#L${first}-L${last}`;
  if (location.hash !== canonical && !document.getElementById(location.hash.slice(1))) {
    history.replaceState(history.state, "", canonical);
  }
  for (let n = first; n <= last; n++) document.getElementById(`L${n}`)?.classList.add("series-src__marked");
  const start = document.getElementById(`L${first}`), end = document.getElementById(`L${last}`);
  if (!start || !end) return;
  permalink ??= Object.assign(document.createElement("button"), {type: "button", className: "series-permalink"});
  permalink.textContent = "复制链接";
  permalink.setAttribute("aria-label", first === last ? `复制第 ${first} 行的链接` : `复制第 ${first}–${last} 行的链接`);
  permalink.onclick = async () => {
    await navigator.clipboard.writeText(location.href);
    permalink.textContent = "已复制";
  };
  end.append(permalink);  // a row of its own under the marked lines (series.css): it hides no code
  if (scroll) scrollToLine(start);
}
// The first marked line a line's height below the header, so the range reads from the top of the screen.
function scrollToLine(line) {
  const header = document.querySelector(".md-header")?.getBoundingClientRect().bottom ?? 0;
  const lineHeight = parseFloat(getComputedStyle(line).lineHeight) || 20;
  scrollTo({top: scrollY + line.getBoundingClientRect().top - header - lineHeight, behavior: "instant"});
}
document$.subscribe(() => markLines());
window.addEventListener("hashchange", () => markLines());
let linkedBefore = null;  // the line a shift-click extends from
document.addEventListener("click", event => {
  const line = event.target.closest?.(".series-src__chunk > span");
  if (!line || event.target.closest("a, button")) return;
  const number = getComputedStyle(line, "::before");  // the line's number is drawn there
  if (event.clientX - line.getBoundingClientRect().left > parseFloat(number.left) + parseFloat(number.width)) return;
  const n = Number(line.dataset.n);
  const [a, b] = event.shiftKey && linkedBefore ? [Math.min(linkedBefore, n), Math.max(linkedBefore, n)] : [n, n];
  if (!event.shiftKey) linkedBefore = n;
  else getSelection().removeAllRanges();  // a shift-click selects text too: the range is the lines, not a selection
  history.pushState(history.state, "", a === b ? `#L${a}` : `#L${a}-L${b}`);
  markLines({scroll: false});
  event.preventDefault();
});


// A name linked to its definition (a.series-xref) carries a tip: the definition's line and docstring, shown in
// one element of the page's body, kept under the name as the page moves: so no box clips it (a source page's
// chunk of lines, laid out only near the screen). A mouse shows it while over the name or the tip, the keyboard
// while the name has focus (a mouse's tip over another name gives it back after); a screen reader hears it as the
// description of the name it shows; a tap on a touch screen shows it with a link to the definition, and a second
// tap on the name follows it. Escape hides it.
const tip = Object.assign(document.createElement("div"), {id: "series-tip", className: "series-tip", hidden: true});
tip.setAttribute("role", "tooltip");
document.body.append(tip);
let tipFor = null, tapped = false;  // the name whose tip shows, and whether a tap showed it
const nameAt = target => target?.closest?.("a.series-xref");
const keyboardName = () => nameAt(document.activeElement)?.matches(":focus-visible") ? document.activeElement : null;
function placeTip() {
  const box = tipFor.getBoundingClientRect(), width = tip.offsetWidth;  // its width, once it holds the words
  tip.style.top = `${box.bottom + scrollY + 4}px`;
  tip.style.left = `${Math.max(8, Math.min(box.left, document.documentElement.clientWidth - width - 8)) + scrollX}px`;
}
function describe(name) {  // the tip holds the name's words, and describes that name only
  tip.replaceChildren(document.createTextNode(name.dataset.tip));
  for (const other of document.querySelectorAll('a.series-xref[aria-describedby="series-tip"]')) {
    if (other !== name) other.removeAttribute("aria-describedby");
  }
  name.setAttribute("aria-describedby", "series-tip");
}
function showTip(name, byTap) {
  describe(name);
  if (byTap) tip.append(Object.assign(document.createElement("a"), {href: name.href, textContent: "转到定义"}));
  tip.hidden = false;
  tipFor = name;
  tapped = byTap;
  placeTip();
}
function hideTip() {
  tip.hidden = true;
  tipFor = null;
  tapped = false;
}
function tipBack() {  // once a mouse's tip ends: the keyboard's name keeps its own
  const focused = keyboardName();
  if (focused) showTip(focused, false); else hideTip();
}
for (const event of ["scroll", "resize"]) addEventListener(event, () => { if (tipFor) placeTip(); }, {passive: true});
document.addEventListener("pointerover", event => {
  const name = nameAt(event.target);
  if (name && event.pointerType !== "touch" && tipFor !== name) showTip(name, false);
});
document.addEventListener("pointerout", event => {
  const to = event.relatedTarget;
  if (tipFor && !tapped && event.pointerType !== "touch" && !(to && (tipFor.contains(to) || tip.contains(to)))
      && tipFor !== keyboardName()) tipBack();
});
document.addEventListener("focusin", event => {
  const name = nameAt(event.target);
  if (!name || tipFor === name) return;
  if (name.matches(":focus-visible")) showTip(name, false);
  else if (!tipFor) describe(name);  // focused by a click: heard, not shown
});
document.addEventListener("focusout", event => {
  if (tipFor && event.target === tipFor && !tapped) hideTip();
});
let touched = false;  // the click comes from a tap
document.addEventListener("pointerdown", event => { touched = event.pointerType === "touch"; }, true);
document.addEventListener("click", event => {
  const name = nameAt(event.target);
  if (name && touched && !(tipFor === name && tapped)) {
    event.preventDefault();
    showTip(name, true);
  } else if (!tip.contains(event.target) && !(name && tipFor === name)) {
    hideTip();
  }
});
document.addEventListener("keydown", event => {
  if (event.key === "Escape") hideTip();
});

// Search results: the index separates Chinese words with zero-width spaces (Material's jieba segmentation),
// which would be copied with a teaser; and a result with no term to highlight links with an empty ?h=.
// Material ranks a page by how often it holds the query's words (for Chinese, the words jieba and its own
// segmenter make of it), not by the phrase, and may miss a page whose words hold the phrase inside a longer one.
// The rule here: the posts that hold the query as typed come first, then the other pages that hold it (scripts,
// the package's definitions), then the rest, each in Material's order; a page that holds it and that Material
// left out is added; and each page's teaser is the section that holds it.
const results = document.querySelector(".md-search-result__list");
let sections = null;  // page address -> its sections [{url, title, text}], from the search index (loaded once)
async function loadSections() {
  const index = await (await fetch(new URL("search/search_index.json", __md_scope))).json();
  const pages = new Map();
  for (const doc of index.docs) {
    const url = new URL(doc.location, __md_scope);
    const page = new URL(url);
    page.hash = "";
    if (!pages.has(page.href)) pages.set(page.href, []);
    pages.get(page.href).push({url: url.href, title: plain(doc.title), text: plain(doc.text)});
  }
  return pages;
}
const parser = document.createElement("template");  // inert: nothing in it loads or runs
function plain(html) {
  parser.innerHTML = html;
  return parser.content.textContent.replaceAll("\u200b", "").replace(/\s+/g, " ").trim();
}
function pageOf(link) {
  const page = new URL(link.href);
  page.hash = page.search = "";
  return page.href;
}
function matching(page, query) {
  return (sections.get(page) || []).find(s => `${s.title} ${s.text}`.toLowerCase().includes(query));
}
function snippet(text, query) {  // the words around the phrase, the phrase marked
  const at = text.toLowerCase().indexOf(query);
  const p = document.createElement("p");
  if (at < 0) { p.textContent = text.slice(0, 120); return p; }
  const mark = Object.assign(document.createElement("mark"), {textContent: text.slice(at, at + query.length)});
  p.append((at > 40 ? "…" : "") + text.slice(Math.max(0, at - 40), at), mark, text.slice(at + query.length, at + query.length + 80));
  return p;
}
function sectionLink(section, query, title) {  // a section as Material lists one: its title, the words matched
  const link = Object.assign(document.createElement("a"), {href: section.url, className: "md-search-result__link"});
  link.tabIndex = -1;
  const article = Object.assign(document.createElement("article"), {className: "md-search-result__article md-typeset"});
  if (title) article.append(Object.assign(document.createElement("h1"), {textContent: title}));
  if (section.title !== title) article.append(Object.assign(document.createElement("h2"), {textContent: section.title}));
  article.append(snippet(section.text, query));
  link.append(article);
  return link;
}
function addedItem(page, section, query) {  // a page Material left out, as Material lists one
  const item = Object.assign(document.createElement("li"), {className: "md-search-result__item"});
  item.dataset.seriesAdded = page;
  item.append(sectionLink(section, query, (sections.get(page) || [section])[0].title));
  return item;
}
function teaserFirst(item, page, query) {  // the item's first link after its title: a section that holds the phrase
  const links = [...item.querySelectorAll("a.md-search-result__link")];
  if (item.dataset.seriesAdded || item.dataset.seriesTeaser === query) return;  // settled: each item once a query
  item.dataset.seriesTeaser = query;
  if (links[0].textContent.replaceAll("\u200b", "").toLowerCase().includes(query)) return;
  const named = link => link.querySelector("h2")?.textContent.toLowerCase() === query;  // a definition of that name
  let holding = links.slice(1).find(named)
    || links.slice(1).find(link => link.textContent.replaceAll("\u200b", "").toLowerCase().includes(query));
  if (!holding) {  // Material left that section out: it is added from the index
    const section = matching(page, query);
    if (!section) return;
    holding = sectionLink(section, query);
  }
  if (holding !== links[1]) links[0].after(holding);
  // A page listed by its title alone (a source page: its definitions are its sections) leads to that section.
  if (!links[0].querySelector("article > :not(h1, .md-search-result__icon)")) links[0].href = holding.href;
}
let settling = false, again = false;  // one pass at a time; a change during a pass makes another
async function phraseFirst() {
  const query = (document.querySelector(".md-search__input")?.value || "").replace(/\s+/g, " ").trim().toLowerCase();
  if (query.length < 2) return;
  if (settling) { again = true; return; }
  settling = true;
  try {
    sections ??= await loadSections();
    const listed = new Map();
    for (const item of results.children) {
      const link = item.querySelector("a");
      if (!link) continue;
      const page = pageOf(link);
      if (item.dataset.seriesAdded && listed.has(page)) item.remove();  // Material lists it now
      else if (!listed.has(page)) listed.set(page, item);
    }
    for (const [page, section] of [...sections.keys()].map(page => [page, matching(page, query)])) {
      if (section && !listed.has(page)) listed.set(page, addedItem(page, section, query));
    }
    const posts = new URL("posts/", __md_scope).pathname;
    const tier = page => !matching(page, query) ? 2 : new URL(page).pathname.startsWith(posts) ? 0 : 1;
    const items = [...listed.entries()];
    const ordered = [0, 1, 2].flatMap(n => items.filter(([page]) => tier(page) === n)).map(([, item]) => item);
    for (const [page, item] of items) teaserFirst(item, page, query);
    if (ordered.some((item, n) => item !== results.children[n])) results.append(...ordered);  // no change, no move
    const meta = document.querySelector(".md-search-result__meta"), count = `${ordered.length} 个符合条件的结果`;
    if (meta && ordered.some(item => item.dataset.seriesAdded) && meta.textContent !== count) meta.textContent = count;
    results.dataset.phraseFirst = query;  // the order is settled for this query
  } finally {
    settling = false;
  }
  if (again) { again = false; phraseFirst(); }
}
if (results) {
  new MutationObserver(() => {
    const walker = document.createTreeWalker(results, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.data.includes("\u200b")) node.data = node.data.replaceAll("\u200b", "");
    }
    for (const link of results.querySelectorAll('a[href*="?h="]')) {
      const url = new URL(link.href);
      if (url.searchParams.get("h") === "") { url.searchParams.delete("h"); link.href = url.href; }
    }
    phraseFirst();
  }).observe(results, {childList: true, subtree: true});
  // A query Material finds nothing for changes no result: the pages that hold it as typed are added after it.
  document.querySelector(".md-search__input")?.addEventListener("input", () => setTimeout(phraseFirst, 300));
  // Material says it is done in the result count, also when it found nothing and the list does not change (its
  // index fails some queries, depending on the index's words): the pages that hold the query are added then.
  const meta = document.querySelector(".md-search-result__meta");
  if (meta) new MutationObserver(() => phraseFirst()).observe(meta, {childList: true, characterData: true, subtree: true});
  // Results Material listed before this script ran (an address with ?q= on a busy machine) change nothing more.
  if (results.children.length || meta?.textContent.trim()) phraseFirst();
}

// Code wraps by default (series.css); a reader may switch wrapping off (the code then scrolls sideways), for
// every code block at once, and the choice is kept for the next page.
function setWrap(wrap) {
  document.documentElement.classList.toggle("series-nowrap", !wrap);
  for (const button of document.querySelectorAll(".series-wrap")) button.setAttribute("aria-pressed", String(wrap));
}
// Material adds a code block's buttons (nav.md-code__nav) when the block first scrolls into view
// (content.lazy): each one gets its name and the wrap switch as it comes.
function equipCodeNav(nav) {
  const block = nav.closest("div.highlight");
  if (!block || nav.querySelector(".series-wrap")) return;
  nav.setAttribute("aria-label", `代码块 ${[...document.querySelectorAll("div.highlight")].indexOf(block) + 1} 的操作`);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "series-wrap";
  button.title = "折行";
  button.setAttribute("aria-label", "折行");
  button.setAttribute("aria-pressed", String(!document.documentElement.classList.contains("series-nowrap")));
  button.textContent = "↩";
  button.addEventListener("click", () => {
    const wrap = document.documentElement.classList.contains("series-nowrap");
    localStorage.setItem("series-wrap", wrap ? "on" : "off");
    setWrap(wrap);
  });
  nav.prepend(button);
}
setWrap(localStorage.getItem("series-wrap") !== "off");
document.querySelectorAll("nav.md-code__nav").forEach(equipCodeNav);
new MutationObserver(changes => {
  for (const change of changes) {
    for (const node of change.addedNodes) {
      if (node instanceof Element && node.matches("nav.md-code__nav")) equipCodeNav(node);
    }
  }
}).observe(document.body, {childList: true, subtree: true});

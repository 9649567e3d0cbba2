-- reader.lua: what a reader needs around the chapters, in both renderings.
--
--  * "Reproduce": the two commands that rebuild the paper and check it, and
--    the machine and run this copy was measured on, as [key]{.num}
--    placeholders that values.lua (which must run after this filter) fills
--    from data/, like every other number in the paper.
--  * "Cite this paper": a plain-text citation and BibTeX, made at weave time
--    from CITATION.cff's preferred-citation (with the study it re-runs, from
--    its references), so the page can never cite differently from the file.
--    Both name the version, the commit the data was measured at
--    (machine.commit) and whether data/ is as committed (and in which
--    commit: $IPCTAX_DATA_STATE, "committed in X" or "not committed"), and
--    the commit the weave read its sources from ($IPCTAX_WEAVE_COMMIT); the
--    Makefile sets both. A copy re-woven from a reader's own run (data/ not
--    committed) cites what others can retrieve: the published version, its
--    data measured at the published run's commit (compare.published.commit)
--    and committed in $IPCTAX_PUBLISHED_DATA; the local run is named apart,
--    below the citation, as what this copy shows. The BibTeX is also
--    written to $IPCTAX_WOVEN/citation.bib, for tests/check_bibtex.py.
--  * The addresses, from CITATION.cff alone: `url`, where site/ is
--    published (the landing page), and `repository-code`, the repository.
--    Until there is one, the field is left out of the file, and everything
--    made from it is left out too (a relative citation_pdf_url would
--    mislead indexers); once it is filled in, the tags, the citations, the
--    boxes and the paper's links into book.pdf all use it.
--  * The licences, from CITATION.cff: the paper's (preferred-citation's
--    license, for the text, figures and data) and the code's (the top-level
--    licence that is not the paper's; the top level names both, as the
--    repository holds both).
--  * The authors: a person is "Family, Given"; an entity (a CFF `name`) is
--    its name whole, which in the citation_author tag is written "Name,":
--    reference managers read a name without a comma as "Given Family" and
--    split an entity ("The ipctax authors" became given name "The ipctax",
--    family name "authors"), and read "Family, Given" with no given name
--    as one family name, which is an entity.
--  * Files: the two PDFs beside the page (paper.pdf, Part I alone; book.pdf,
--    the whole book), the values its numbers are read from (values.csv,
--    beside it too), and the data files the page was woven from
--    ($IPCTAX_DATA_FILES, as data/NAME.csv: the weave publishes a copy of
--    data/ inside site/, so the links work when site/ is served on its
--    own), with their sizes.
--  * HTML only: scholarly <meta name="citation_..."> tags from the same
--    file (citation_abstract is added by head.lua, once the abstract's
--    numbers are filled), a "Contents" title for the table of contents, and
--    the page's own scripts and style sheet (paper/web/, inline, so the
--    page stays self-contained; their comments and indentation are left in
--    paper/web/, not carried in the page).
--  * HTML only, too: the two markers around Parts II and III (before the
--    second part's heading, and after the last block) that ipctax-pack
--    finds and replaces with their gzip (paper/97-appendix-page.md);
--    paper/web/pack.js, the first script, unpacks them in the browser.
--  * LaTeX only: the table of contents after the reader's box
--    (\IpctaxContents, paper/latex/preamble.tex), when pandoc has --toc;
--    the paper alone ($IPCTAX_EDITION=paper, edition.lua) points to the
--    book for the program.
--
-- CITATION.cff is YAML; pandoc's own YAML reader parses it as a metadata
-- block. It is not given to pandoc as --metadata-file, whose "references"
-- key citeproc would take for the paper's bibliography.

local is_latex = FORMAT:match("latex") ~= nil
local is_html = FORMAT:match("html") ~= nil
local CFF = os.getenv("IPCTAX_CITATION") or "CITATION.cff"
local WOVEN = os.getenv("IPCTAX_WOVEN") or "build/woven"
local WEAVE_COMMIT = os.getenv("IPCTAX_WEAVE_COMMIT") or "unknown"
local DATA_STATE = os.getenv("IPCTAX_DATA_STATE") or "not committed"
local PUBLISHED_DATA = os.getenv("IPCTAX_PUBLISHED_DATA") or ""
local PAPER_ONLY = os.getenv("IPCTAX_EDITION") == "paper"
local SCRIPTS = {"paper/web/pack.js", "paper/web/figures.js", "paper/web/chunks.js",
                 "paper/web/cite.js", "paper/web/nav.js", "paper/web/numbers.js",
                 "paper/web/tables.js"}
local STYLE = "paper/web/style.css"
local MONTHS = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

local stringify = pandoc.utils.stringify

local function read(path)
  local f = io.open(path, "r")
  if not f then error("reader.lua: cannot read " .. path) end
  local text = f:read("a")
  f:close()
  return text
end

local function str(v)
  if v == nil then return nil end
  local s = stringify(v)
  if s == "" then return nil end
  return s
end

local function html_escape(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- A value of values.csv, as the summary wrote it (the boxes ask for the
-- data's commit as a placeholder too; the BibTeX, being code, cannot), or
-- nil.
local function woven_value(key)
  local f = io.open(WOVEN .. "/values.csv", "r")
  if not f then return nil end
  local pattern = "^" .. key:gsub("%.", "%%.") .. ",(.*)$"
  for line in f:lines() do
    local v = line:match(pattern)
    if v then f:close(); return (v:gsub('^"(.*)"$', "%1")) end
  end
  f:close()
  return nil
end

local function data_commit()
  return woven_value("machine.commit") or "unknown"
end

-- Whether this copy was woven from a run that is not the published one (a
-- reader's own, data/ not committed) while the published run is known:
-- then the citation is the published version's, and the local run is
-- named apart.
local function local_run()
  local published = woven_value("compare.published.commit")
  return DATA_STATE == "not committed" and PUBLISHED_DATA ~= "" and published ~= nil
    and published ~= "n/a" and woven_value("compare.same_run") == "no"
end

-- --- CITATION.cff ----------------------------------------------------------

local function load_cff()
  local meta = pandoc.read("---\n" .. read(CFF) .. "\n---\n", "markdown-smart").meta
  local top = meta
  local pc = meta["preferred-citation"] or meta
  return top, pc, meta["references"]
end

-- A CFF person or entity: {display = "Given Family" or "Name", bib = "Family, Given"
-- or "{Name}", meta = "Family, Given" or "Name"}.
local function person(a)
  local family, given = str(a["family-names"]), str(a["given-names"])
  if family then
    local particle = str(a["name-particle"])
    if particle then family = particle .. " " .. family end
    return {display = (given and (given .. " ") or "") .. family,
            bib = family .. (given and (", " .. given) or ""),
            meta = family .. (given and (", " .. given) or "")}
  end
  local name = str(a["name"]) or str(a["alias"]) or "Anonymous"
  return {display = name, bib = "{" .. name .. "}", meta = name .. ","}
end

local function people(list)
  local out = {}
  for _, a in ipairs(list or {}) do out[#out + 1] = person(a) end
  return out
end

local function join_names(ps, key, sep, last)
  local names = {}
  for _, p in ipairs(ps) do names[#names + 1] = p[key] end
  if #names <= 1 or not last then return table.concat(names, sep) end
  return table.concat(names, sep, 1, #names - 1) .. last .. names[#names]
end

local function year_of(entry, top)
  return str(entry["year"]) or (str(top["date-released"]) or ""):match("^(%d%d%d%d)")
end

local function month_of(entry, top)
  local m = tonumber(str(entry["month"]) or "")
  if not m then m = tonumber((str(top["date-released"]) or ""):match("^%d%d%d%d%-(%d%d)") or "") end
  return m
end

local function url_of(entry, top)
  local doi = str(entry["doi"]) or str(top["doi"])
  if doi then return "https://doi.org/" .. doi end
  return str(entry["url"]) or str(entry["repository-code"])
    or str(top["url"]) or str(top["repository-code"])
end

-- An absolute http(s) address from CITATION.cff, or nil when the field is
-- left out; anything else stops the weave.
local function address(top, field)
  local u = str(top[field])
  if not u then return nil end
  if not u:match("^https?://[^%s]+$") then
    error("reader.lua: " .. CFF .. ": " .. field .. " must be an absolute http(s) address, not " .. u)
  end
  return u
end

-- Where site/ is published, ending in "/" (CITATION.cff's url), or nil.
local function site_url(top)
  local u = address(top, "url")
  return u and (u:gsub("/*$", "/")) or nil
end

local TYPE_NAMES = {report = "Report", article = "Article", software = "Software",
                    book = "Book", thesis = "Thesis", ["conference-paper"] = "Conference paper"}

-- The version and the two commits, as the citation states them.
local function provenance(entry, top)
  local version = str(entry["version"]) or str(top["version"])
  return version, data_commit(), WEAVE_COMMIT
end

local function provenance_text(entry, top)
  local version, data, weave = provenance(entry, top)
  local state = DATA_STATE
  if local_run() then
    data, state = woven_value("compare.published.commit"), PUBLISHED_DATA
  end
  return (version and ("version " .. version .. ", ") or "")
    .. "data measured at commit " .. data .. " (" .. state .. "), woven from commit " .. weave
end

-- The local run this copy shows, named apart from the citation.
local function local_run_text()
  return "This copy shows a local run, not the published one: measured on "
    .. (woven_value("machine.date") or "?") .. " on " .. (woven_value("machine.cpu") or "?")
    .. " at commit " .. data_commit() .. " (not committed). Cite the published version above;"
    .. " name the local run, if you quote its figures, by that date, machine and commit."
end

-- "Authors (2026). Title. Report, version 1.0.0, data measured at commit
-- X, woven from commit Y. URL"; the study it re-runs is cited without the
-- provenance, which is this build's.
local function plain_citation(entry, top, ours)
  local ps = people(entry["authors"])
  local parts = {join_names(ps, "display", ", ", " and ")}
  local year = year_of(entry, top)
  parts[1] = parts[1] .. (year and (" (" .. year .. ").") or ".")
  local title = str(entry["title"]) or ""
  parts[#parts + 1] = title .. (title:match("[.?!]$") and "" or ".")
  local kind = TYPE_NAMES[str(entry["type"]) or ""]
  if ours then
    parts[#parts + 1] = (kind and (kind .. ", ") or "") .. provenance_text(entry, top) .. "."
  elseif kind then
    local version = str(entry["version"])
    parts[#parts + 1] = kind .. (version and (", version " .. version) or "") .. "."
  end
  local url = url_of(entry, top)
  if url then parts[#parts + 1] = url end
  return table.concat(parts, " ")
end

local function bib_escape(s)
  return (s:gsub("[&%%$#_]", "\\%0"))
end

-- BibTeX that plain.bst (and biblatex) read without a warning: a report
-- with an institution is a @techreport, anything else without a venue a
-- @misc; the version and the commits are in the note, where every style
-- prints them (biblatex also reads version).
local function bibtex(entry, top)
  local ps = people(entry["authors"])
  local year = year_of(entry, top)
  local first = ps[1] and ps[1].display or "anon"
  local key = first:lower():gsub("^the%s+", ""):gsub("[^%w]", "") .. (year or "")
  local institution = entry["institution"] and str(entry["institution"]["name"])
  local kind = "misc"
  local t = str(entry["type"]) or ""
  if t == "report" and institution then kind = "techreport"
  elseif t == "article" and str(entry["journal"]) then kind = "article" end
  local fields = {}
  local function field(name, value, raw)
    if value then fields[#fields + 1] = string.format("  %-12s = %s", name, raw and value
                                                      or ("{" .. bib_escape(value) .. "}")) end
  end
  field("author", join_names(ps, "bib", " and "))
  field("title", str(entry["title"]) and ("{" .. bib_escape(str(entry["title"])) .. "}"))
  if kind == "techreport" then field("institution", institution) end
  if kind == "article" then field("journal", str(entry["journal"])) end
  if kind == "misc" and TYPE_NAMES[t] then field("howpublished", TYPE_NAMES[t]) end
  field("year", year)
  local month = month_of(entry, top)
  field("month", month and MONTHS[month], true)
  local version = provenance(entry, top)
  field("version", version)
  field("doi", str(entry["doi"]))
  local url = url_of(entry, top)
  if url and not str(entry["doi"]) then field("url", url) end
  local note = provenance_text(entry, top):gsub("^%l", string.upper)
  field("note", note .. "." .. (str(entry["notes"]) and (" " .. str(entry["notes"])) or ""))
  return "@" .. kind .. "{" .. key .. ",\n" .. table.concat(fields, ",\n") .. "\n}\n"
end

local function write_bib(text)
  local path = WOVEN .. "/citation.bib"
  local tmp = path .. "." .. FORMAT .. ".tmp"
  local f = io.open(tmp, "w")
  if not f then return end        -- no woven/ folder: nothing to test against
  f:write(text)
  f:close()
  os.rename(tmp, path)
end

-- --- Licences ---------------------------------------------------------------

local LICENSES = {
  ["CC-BY-4.0"] = {name = "CC BY 4.0", url = "https://creativecommons.org/licenses/by/4.0/",
                   file = "LICENSE-CC-BY-4.0.txt"},
  ["MIT"] = {name = "MIT licence", url = "https://opensource.org/license/mit/", file = "LICENSE"},
}

local function license(id)
  id = id or "unknown"
  return LICENSES[id] or {name = id, url = nil, file = nil}
end

-- CFF's license: one identifier, or a list of them.
local function license_ids(v)
  if v == nil then return {} end
  if type(v) == "table" and v.t == nil and v[1] ~= nil and type(v[1]) == "table" then
    local out = {}
    for _, x in ipairs(v) do out[#out + 1] = stringify(x) end
    return out
  end
  return {stringify(v)}
end

-- The paper's licence (text, figures, data) and the code's: the top-level
-- licence that is not the paper's.
local function licenses(top, pc)
  local ids = license_ids(top["license"])
  local paper_id = str(pc["license"]) or ids[1]
  local code_id = nil
  for _, id in ipairs(ids) do
    if id ~= paper_id and not code_id then code_id = id end
  end
  return license(paper_id), license(code_id or paper_id)
end

-- --- Files --------------------------------------------------------------------

local function size_text(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  if n < 1000 then return n .. " B" end
  if n < 1000000 then return string.format("%.0f kB", n / 1000) end
  return string.format("%.1f MB", n / 1000000)
end

local function data_files()
  local out = {}
  for path in (os.getenv("IPCTAX_DATA_FILES") or ""):gmatch("%S+") do out[#out + 1] = path end
  table.sort(out)
  return out
end

-- --- <meta> tags -----------------------------------------------------------------

local function meta_tags(entry, top, lang, site, paper_license, code_license)
  local tags = {}
  local function tag(name, value)
    if value then
      tags[#tags + 1] = '<meta name="' .. name .. '" content="' .. html_escape(value) .. '" />'
    end
  end
  tag("citation_title", str(entry["title"]))
  for _, p in ipairs(people(entry["authors"])) do tag("citation_author", p.meta) end
  local year, month = year_of(entry, top), month_of(entry, top)
  tag("citation_publication_date", year and (year .. (month and string.format("/%02d", month) or "")))
  if str(entry["type"]) == "report" then
    tag("citation_technical_report_institution",
        entry["institution"] and str(entry["institution"]["name"]) or nil)
    tag("citation_technical_report_number", str(entry["version"]) and ("version " .. str(entry["version"])))
  end
  tag("citation_doi", str(entry["doi"]))
  local kw = {}
  for _, k in ipairs(top["keywords"] or {}) do kw[#kw + 1] = stringify(k) end
  if #kw > 0 then tag("citation_keywords", table.concat(kw, "; ")) end
  tag("citation_language", lang)
  if site then
    tag("citation_pdf_url", site .. "paper.pdf")
    tag("citation_public_url", site)
  end
  -- The sources the paper is woven from: the repository.
  tag("DC.source", address(top, "repository-code"))
  -- (not <link rel="license">: a link element is a resource a tool may
  -- fetch.) The paper's licence first: it is the page's.
  tag("dcterms.license", paper_license.url)
  tag("dcterms.license", code_license.url)
  tag("DC.rights", "Text, figures and data: " .. paper_license.name .. "; code: "
      .. code_license.name .. ".")
  return tags
end

-- --- The boxes -------------------------------------------------------------

local function num(key)
  return pandoc.Span({pandoc.Str(key)}, pandoc.Attr("", {"num"}))
end

local function text(s)
  local out = pandoc.List()
  for word, space in s:gmatch("(%S+)(%s*)") do
    out:insert(pandoc.Str(word))
    if space ~= "" then out:insert(pandoc.Space()) end
  end
  if s:match("^%s") then out:insert(1, pandoc.Space()) end
  return out
end

local function inlines(...)
  local out = pandoc.List()
  for _, part in ipairs({...}) do
    if type(part) == "string" then out:extend(text(part)) else out:insert(part) end
  end
  return out
end

local COMMANDS = "make paper   # install what is missing, build, measure, plot, weave site/\n"
              .. "make test    # unit tests, tangle check, citation check, browser check"

local function machine_sentence()
  return inlines("This copy was measured on ", num("machine.date"), " on ",
    pandoc.Span({pandoc.Str("machine.cpu")}, pandoc.Attr("", {"num", "article"})),
    " (", num("machine.cores"), " cores), ", num("machine.kernel"),
    ", compiled with ", num("machine.compiler"), " at commit ", num("machine.commit"), ": ",
    num("run.bars"), " bars, every architecture in ", num("run.rounds"), " rounds.")
end

-- Escaped for HTML, with its URLs as links.
local function linked(s)
  local out, pos = {}, 1
  for start, url, stop in s:gmatch("()(https?://[^%s]+)()") do
    out[#out + 1] = html_escape(s:sub(pos, start - 1))
    out[#out + 1] = '<a href="' .. html_escape(url) .. '">' .. html_escape(url) .. "</a>"
    pos = stop
  end
  out[#out + 1] = html_escape(s:sub(pos))
  return table.concat(out)
end

local function html_link(href, label)
  return '<a href="' .. html_escape(href) .. '">' .. html_escape(label) .. "</a>"
end

-- "CC BY 4.0 (../LICENSE-CC-BY-4.0.txt)": the licence's name linked to its
-- text in the repository, and its public address.
local function html_license(l)
  local name = l.file and html_link("../" .. l.file, l.name) or html_escape(l.name)
  if l.url then name = name .. " (" .. html_link(l.url, l.url:gsub("^https://", "")) .. ")" end
  return name
end

local function html_files()
  local items = {'<li>' .. html_link("paper.pdf", "paper.pdf")
                 .. ": the paper (Part I and its references) as a PDF, to review on its own</li>",
                 '<li>' .. html_link("book.pdf", "book.pdf")
                 .. ": the whole book as a PDF, with the program and the appendices</li>",
                 '<li>' .. html_link("values.csv", "values.csv")
                 .. ": every value the page's numbers are read from, by key (click a number"
                 .. " to see its key, its data and the code that computes it)</li>"}
  local files = {}
  for _, path in ipairs(data_files()) do
    local size = size_text(path)
    files[#files + 1] = html_link(path, path:match("[^/]+$"))
      .. (size and (' <span class="file-size">' .. size .. "</span>") or "")
  end
  if #files > 0 then
    items[#items + 1] = "<li>the data this copy was woven from, in " .. html_link("data/README.md", "data/")
      .. " beside this page (described in its README.md): " .. table.concat(files, ", ") .. "</li>"
  end
  return '<ul class="files">' .. table.concat(items) .. "</ul>"
end

-- What the boxes say while CITATION.cff gives no repository-code: plainly
-- that there is no address yet, as `make reproduction` says it too.
local NO_ADDRESS = "This project has no public address yet (CITATION.cff gives none):"
  .. " the repository is the one this copy came from."

local function html_boxes(top, pc, refs)
  local blocks = pandoc.List()
  local paper_license, code_license = licenses(top, pc)
  local repo = address(top, "repository-code")
  -- Reproduce
  local repro = pandoc.List()
  repro:insert(pandoc.Para({pandoc.Strong(text("Reproduce this paper"))}))
  if repo then
    repro:insert(pandoc.Para(inlines("On Debian 12, in a clone of the repository (",
      pandoc.Link({pandoc.Str(repo)}, repo), "):")))
  else
    repro:insert(pandoc.Para(text(NO_ADDRESS .. " On Debian 12, in a clone of the repository:")))
  end
  repro:insert(pandoc.CodeBlock(COMMANDS, pandoc.Attr("", {"reproduce-commands"})))
  repro:insert(pandoc.Para(machine_sentence()))
  repro:insert(pandoc.RawBlock("html", html_files()))
  blocks:insert(pandoc.Div(repro, pandoc.Attr("reproduce", {"reader-box", "reproduce"})))
  -- Cite
  local cite = pandoc.List()
  cite:insert(pandoc.Para({pandoc.Strong(text("Cite this paper"))}))
  cite:insert(pandoc.RawBlock("html", '<p class="citation-plain" id="citation-plain">'
    .. linked(plain_citation(pc, top, true)) .. "</p>"))
  if local_run() then
    cite:insert(pandoc.RawBlock("html", '<p class="citation-local" id="citation-local">'
      .. html_escape(local_run_text()) .. "</p>"))
  end
  if refs and refs[1] then
    cite:insert(pandoc.RawBlock("html", '<p class="citation-original">and the study it re-runs: '
      .. linked(plain_citation(refs[1], refs[1], false)) .. "</p>"))
  end
  local bib = bibtex(pc, top)
  write_bib(bib)
  cite:insert(pandoc.RawBlock("html", '<details class="citation-bibtex"><summary>BibTeX</summary>'
    .. '<pre id="citation-bibtex"><code>' .. html_escape(bib) .. "</code></pre></details>"))
  cite:insert(pandoc.RawBlock("html", '<p class="license" id="license">Licence: the text, '
    .. "figures and data are under " .. html_license(paper_license) .. "; the code is under the "
    .. html_license(code_license) .. ".</p>"))
  blocks:insert(pandoc.Div(cite, pandoc.Attr("cite", {"reader-box", "cite"})))
  return pandoc.Div(blocks, pandoc.Attr("", {"reader-boxes"}))
end

local function latex_boxes(top, pc, site)
  local repo = address(top, "repository-code")
  local paper_license, code_license = licenses(top, pc)
  local function lic(l)
    local out = pandoc.List({pandoc.Str(l.name)})
    if l.url then out:extend({pandoc.Space(), pandoc.Str("("), pandoc.Link(l.url:gsub("^https://", ""), l.url),
                              pandoc.Str(")")}) end
    return out
  end
  local body = pandoc.List()
  body:insert(pandoc.RawBlock("latex", "\\begin{ReaderBox}"))
  local clone = repo and inlines(" On Debian 12, in a clone of the repository (",
                                 pandoc.Link({pandoc.Str(repo)}, repo), "), ")
                  or inlines(" " .. NO_ADDRESS .. " On Debian 12, in a clone of the repository, ")
  local reproduce = inlines(pandoc.Strong({pandoc.Str("Reproduce.")}))
  reproduce:extend(clone)
  reproduce:extend(inlines(pandoc.Code("make paper"),
    " rebuilds, re-measures and re-weaves this paper, and ", pandoc.Code("make test"),
    " checks it. "))
  body:insert(pandoc.Para(reproduce))
  body[#body].content:extend(machine_sentence())
  local function file(name)
    return site and pandoc.Link({pandoc.Str(site .. name)}, site .. name)
                or pandoc.Code("site/" .. name)
  end
  local other = PAPER_ONLY
    and inlines(" This is the paper alone (Part I). The whole book, with the program that"
                .. " measured every number and the appendices, is ", file("book.pdf"),
                "; every number here is a link to the chunk of the book that computes it. ")
    or inlines(" The paper alone (Part I), to review on its own: ", file("paper.pdf"), ". ")
  local files = inlines(pandoc.Strong({pandoc.Str("Files.")}))
  files:extend(other)
  files:extend(inlines("The same book as an interactive page: ", file("index.html"),
    "; the values its numbers are read from: ", file("values.csv"),
    "; the data they were computed from: ", pandoc.Code("data/"), " in the repository."))
  body:insert(pandoc.Para(files))
  body:insert(pandoc.Para(inlines(pandoc.Strong({pandoc.Str("Cite as.")}), " ",
    plain_citation(pc, top, true))))
  if local_run() then body:insert(pandoc.Para(text(local_run_text()))) end
  write_bib(bibtex(pc, top))
  local l = inlines(pandoc.Strong({pandoc.Str("Licence.")}), " The text, figures and data are under ")
  l:extend(lic(paper_license))
  l:extend(inlines("; the code is under the "))
  l:extend(lic(code_license))
  l:extend(inlines(" (files ", pandoc.Code(paper_license.file or "LICENSE"), " and ",
    pandoc.Code(code_license.file or "LICENSE"), ")."))
  body:insert(pandoc.Para(l))
  body:insert(pandoc.RawBlock("latex", "\\end{ReaderBox}"))
  if PANDOC_WRITER_OPTIONS and PANDOC_WRITER_OPTIONS.table_of_contents then
    body:insert(pandoc.RawBlock("latex", "\\IpctaxContents"))
  end
  if site then
    body:insert(1, pandoc.RawBlock("latex", "\\renewcommand{\\IpctaxBookPDF}{"
      .. (site .. "book.pdf"):gsub("[%%#\\{}~]", "\\%0") .. "}"))
  end
  return pandoc.Div(body, pandoc.Attr("", {"reader-boxes"}))
end

-- A script or a style sheet as the page carries it: without its /* */
-- comments, its indentation and its blank lines, which are for the reader
-- of paper/web/ and are a fifth of what the page would carry. The sources
-- keep "/*" out of their strings and regular expressions, and use no
-- line comments, so that nothing else is taken for a comment.
local function compact(code)
  code = code:gsub("/%*.-%*/", "")
  local lines = {}
  for line in (code .. "\n"):gmatch("(.-)\n") do
    line = line:gsub("^%s+", ""):gsub("%s+$", "")
    if line ~= "" then lines[#lines + 1] = line end
  end
  return table.concat(lines, "\n") .. "\n"
end

-- The style sheet also loses the spaces around its punctuation ({ } ; : , >),
-- none of which sit inside its strings.
local function compact_css(css)
  return (compact(css):gsub("%s*([{};:,>])%s*", "%1"))
end

local function script_blocks()
  local out = pandoc.List()
  for _, path in ipairs(SCRIPTS) do
    local js = read(path)
    if js:find("</script", 1, true) then error("reader.lua: " .. path .. " contains </script") end
    out:insert(pandoc.MetaBlocks({pandoc.RawBlock("html",
      '<script>/* ' .. path .. ' */\n' .. compact(js) .. "</script>")}))
  end
  return out
end

-- The markers of what ipctax-pack packs: from the heading of the second
-- part (Part II) to the end. A document without a second part (a test's
-- small page) gets none; ipctax-pack refuses such a page, so the weave of
-- the book cannot lose them unnoticed.
local function mark_packed(blocks)
  local parts = 0
  for i, b in ipairs(blocks) do
    if b.t == "Header" and b.classes:includes("part") then
      parts = parts + 1
      if parts == 2 then
        blocks:insert(i, pandoc.RawBlock("html", "<!--ipctax:pack-->"))
        blocks:insert(pandoc.RawBlock("html", "<!--ipctax:pack-end-->"))
        return
      end
    end
  end
end

-- The boxes follow the verdict strip, which stands right under the abstract
-- (paper/10-introduction.md): where they go.
local function after_the_strip(blocks)
  local first = blocks[1]
  if first and first.t == "Div" and first.classes:includes("verdict-strip") then return 2 end
  return 1
end

function Pandoc(doc)
  local top, pc, refs = load_cff()
  if doc.meta["site-url"] then
    error("reader.lua: the metadata's site-url has moved to CITATION.cff's url")
  end
  local site = site_url(top)
  if is_html then
    local head = pandoc.List()
    local paper_license, code_license = licenses(top, pc)
    for _, t in ipairs(meta_tags(pc, top, str(doc.meta["lang"]), site, paper_license,
                                 code_license)) do
      head:insert(pandoc.MetaBlocks({pandoc.RawBlock("html", t)}))
    end
    -- The style sheet goes into the page itself, as the scripts do, so
    -- that pandoc needs no --self-contained pass, which would parse the
    -- whole page again and write every quote in the code as an entity.
    local css = read(STYLE)
    if css:find("</style", 1, true) then error("reader.lua: " .. STYLE .. " contains </style") end
    head:insert(pandoc.MetaBlocks({pandoc.RawBlock("html", "<style>\n" .. compact_css(css) .. "</style>")}))
    local existing = doc.meta["header-includes"]
    if existing then
      local list = existing.t == "MetaList" and existing or {existing}
      for i = #list, 1, -1 do head:insert(1, list[i]) end
    end
    doc.meta["header-includes"] = pandoc.MetaList(head)
    doc.meta["include-after"] = pandoc.MetaList(script_blocks())
    if not doc.meta["toc-title"] then doc.meta["toc-title"] = pandoc.MetaInlines({pandoc.Str("Contents")}) end
    mark_packed(doc.blocks)
    doc.blocks:insert(after_the_strip(doc.blocks), html_boxes(top, pc, refs))
  elseif is_latex then
    doc.blocks:insert(after_the_strip(doc.blocks), latex_boxes(top, pc, site))
  end
  return doc
end

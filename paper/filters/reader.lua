-- reader.lua: what a reader needs around the chapters, in both renderings.
--
--  * "Reproduce": the two commands that rebuild the paper and check it, and
--    the machine and run this copy was measured on, as [key]{.num}
--    placeholders that values.lua (which must run after this filter) fills
--    from data/, like every other number in the paper.
--  * "Cite this paper": a plain-text citation and BibTeX, made at weave time
--    from CITATION.cff's preferred-citation (with the study it re-runs, from
--    its references), so the page can never cite differently from the file.
--  * HTML only: scholarly <meta name="citation_..."> tags from the same
--    file, a "Contents" title for the table of contents, and the page's own
--    scripts (paper/web/*.js, inline, so the page stays self-contained).
--
-- CITATION.cff is YAML; pandoc's own YAML reader parses it as a metadata
-- block. It is not given to pandoc as --metadata-file, whose "references"
-- key citeproc would take for the paper's bibliography.

local is_latex = FORMAT:match("latex") ~= nil
local is_html = FORMAT:match("html") ~= nil
local CFF = os.getenv("IPCTAX_CITATION") or "CITATION.cff"
local SCRIPTS = {"paper/web/figures.js", "paper/web/chunks.js", "paper/web/cite.js"}
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
  return {display = name, bib = "{" .. name .. "}", meta = name}
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

local TYPE_NAMES = {report = "Report", article = "Article", software = "Software",
                    book = "Book", thesis = "Thesis", ["conference-paper"] = "Conference paper"}
local BIB_TYPES = {report = "techreport", article = "article", software = "software",
                   book = "book", thesis = "phdthesis", ["conference-paper"] = "inproceedings"}

-- "Authors (2026). Title. Report. URL"
local function plain_citation(entry, top)
  local ps = people(entry["authors"])
  local parts = {join_names(ps, "display", ", ", " and ")}
  local year = year_of(entry, top)
  parts[1] = parts[1] .. (year and (" (" .. year .. ").") or ".")
  local title = str(entry["title"]) or ""
  parts[#parts + 1] = title .. (title:match("[.?!]$") and "" or ".")
  local kind = TYPE_NAMES[str(entry["type"]) or ""]
  local version = str(entry["version"])
  if kind then parts[#parts + 1] = kind .. (version and (", version " .. version) or "") .. "." end
  local url = url_of(entry, top)
  if url then parts[#parts + 1] = url end
  return table.concat(parts, " ")
end

local function bib_escape(s)
  return (s:gsub("[&%%$#_]", "\\%0"))
end

local function bibtex(entry, top)
  local ps = people(entry["authors"])
  local year = year_of(entry, top)
  local first = ps[1] and ps[1].display or "anon"
  local key = first:lower():gsub("^the%s+", ""):gsub("[^%w]", "") .. (year or "")
  local kind = BIB_TYPES[str(entry["type"]) or ""] or "misc"
  local fields = {}
  local function field(name, value, raw)
    if value then fields[#fields + 1] = string.format("  %-11s = %s", name, raw and value
                                                      or ("{" .. bib_escape(value) .. "}")) end
  end
  field("author", join_names(ps, "bib", " and "))
  field("title", str(entry["title"]) and ("{" .. bib_escape(str(entry["title"])) .. "}"))
  field("year", year)
  local month = month_of(entry, top)
  field("month", month and MONTHS[month], true)
  field("institution", entry["institution"] and str(entry["institution"]["name"]))
  field("journal", entry["journal"] and str(entry["journal"]))
  field("version", str(entry["version"]))
  field("doi", str(entry["doi"]))
  local url = url_of(entry, top)
  if url and not str(entry["doi"]) then field("url", url) end
  field("note", str(entry["notes"]))
  return "@" .. kind .. "{" .. key .. ",\n" .. table.concat(fields, ",\n") .. "\n}"
end

local function meta_tags(entry, top, lang, abstract)
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
  end
  tag("citation_doi", str(entry["doi"]))
  local kw = {}
  for _, k in ipairs(top["keywords"] or {}) do kw[#kw + 1] = stringify(k) end
  if #kw > 0 then tag("citation_keywords", table.concat(kw, "; ")) end
  tag("citation_language", lang)
  tag("citation_pdf_url", "paper.pdf")
  tag("citation_abstract", abstract)
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
  return inlines("This copy was measured on ", num("machine.date"), " on a ",
    num("machine.cpu"), " (", num("machine.cores"), " cores), ", num("machine.kernel"),
    ", compiled with ", num("machine.compiler"), " at commit ", num("machine.commit"), ": ",
    num("run.bars"), " bars, ", num("run.runs"), " timed runs per architecture.")
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

local function html_boxes(top, pc, refs)
  local blocks = pandoc.List()
  -- Reproduce
  local repro = pandoc.List()
  repro:insert(pandoc.Para({pandoc.Strong(text("Reproduce this paper"))}))
  repro:insert(pandoc.Para(text("On Debian 12, in a clone of the repository:")))
  repro:insert(pandoc.CodeBlock(COMMANDS, pandoc.Attr("", {"reproduce-commands"})))
  repro:insert(pandoc.Para(machine_sentence()))
  blocks:insert(pandoc.Div(repro, pandoc.Attr("reproduce", {"reader-box", "reproduce"})))
  -- Cite
  local cite = pandoc.List()
  cite:insert(pandoc.Para({pandoc.Strong(text("Cite this paper"))}))
  cite:insert(pandoc.RawBlock("html", '<p class="citation-plain" id="citation-plain">'
    .. linked(plain_citation(pc, top)) .. "</p>"))
  if refs and refs[1] then
    cite:insert(pandoc.RawBlock("html", '<p class="citation-original">and the study it re-runs: '
      .. linked(plain_citation(refs[1], refs[1])) .. "</p>"))
  end
  cite:insert(pandoc.RawBlock("html", '<details class="citation-bibtex"><summary>BibTeX</summary>'
    .. '<pre id="citation-bibtex"><code>' .. html_escape(bibtex(pc, top)) .. "</code></pre></details>"))
  blocks:insert(pandoc.Div(cite, pandoc.Attr("cite", {"reader-box", "cite"})))
  return pandoc.Div(blocks, pandoc.Attr("", {"reader-boxes"}))
end

local function latex_boxes(top, pc)
  local body = pandoc.List()
  body:insert(pandoc.RawBlock("latex", "\\begin{ReaderBox}"))
  body:insert(pandoc.Para(inlines(pandoc.Strong({pandoc.Str("Reproduce.")}),
    " On Debian 12, in a clone of the repository, ", pandoc.Code("make paper"),
    " rebuilds, re-measures and re-weaves this paper, and ", pandoc.Code("make test"),
    " checks it. ")))
  body[#body].content:extend(machine_sentence())
  body:insert(pandoc.Para(inlines(pandoc.Strong({pandoc.Str("Cite as.")}), " ",
    plain_citation(pc, top))))
  body:insert(pandoc.RawBlock("latex", "\\end{ReaderBox}"))
  return pandoc.Div(body, pandoc.Attr("", {"reader-boxes"}))
end

local function script_blocks()
  local out = pandoc.List()
  for _, path in ipairs(SCRIPTS) do
    local js = read(path)
    if js:find("</script", 1, true) then error("reader.lua: " .. path .. " contains </script") end
    out:insert(pandoc.MetaBlocks({pandoc.RawBlock("html",
      '<script>/* ' .. path .. ' */\n' .. js .. "</script>")}))
  end
  return out
end

function Pandoc(doc)
  local top, pc, refs = load_cff()
  if is_html then
    local head = pandoc.List()
    for _, t in ipairs(meta_tags(pc, top, str(doc.meta["lang"]), str(doc.meta["abstract"]))) do
      head:insert(pandoc.MetaBlocks({pandoc.RawBlock("html", t)}))
    end
    local existing = doc.meta["header-includes"]
    if existing then
      local list = existing.t == "MetaList" and existing or {existing}
      for i = #list, 1, -1 do head:insert(1, list[i]) end
    end
    doc.meta["header-includes"] = pandoc.MetaList(head)
    doc.meta["include-after"] = pandoc.MetaList(script_blocks())
    if not doc.meta["toc-title"] then doc.meta["toc-title"] = pandoc.MetaInlines({pandoc.Str("Contents")}) end
    doc.blocks:insert(1, html_boxes(top, pc, refs))
  elseif is_latex then
    doc.blocks:insert(1, latex_boxes(top, pc))
  end
  return doc
end

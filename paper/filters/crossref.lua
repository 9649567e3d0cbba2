-- crossref.lua: numbers figures, tables and sections, resolves @fig:id,
-- @tbl:id and @sec:id (or [-@sec:id] for the bare number), and sets the
-- paper's parts.
--
-- Sections are numbered 1, 1.1, ... across the whole paper. Appendices are
-- lettered A, B, ... (subsections A.1, ...): every top-level section from
-- the first one that is marked {.appendix}, or whose title starts with
-- "Appendix" (the word then leaves the title, because the number says it),
-- or that follows a part marked {.appendix}. The numbers are computed here
-- once and given to both writers: in HTML as each header's "number"
-- attribute, which pandoc's --number-sections prints as is; in LaTeX by
-- \appendix before the first appendix, so that LaTeX's own counters print
-- the same letters.
--
-- Parts: a top-level header with the class "part",
--
--   # Part II: The program {.part}
--   # Part III: Appendices {.part .appendix}
--
-- starts a part. "Part II:" is how the part is numbered (a Roman numeral;
-- without it the parts are counted I, II, ...) and the rest is its title.
-- A part heading is not a section: it takes no number and leaves the
-- sections' numbering alone (Part II may begin with Section 6). In the PDF
-- it is \part on a fresh page, headed "Part II" and listed in the table of
-- contents; in HTML it is an h1 of class "part" whose text is a
-- span.part-label ("Part II") and a span.part-title, so the sidebar's
-- table of contents shows it too. Classes on a part heading: "appendix"
-- (every chapter after it is an appendix) and "fold" (every chunk in the
-- part starts folded in HTML; see chunks.lua).
--
-- In HTML every reference becomes a link whose text is "Figure 3" (or "3");
-- in LaTeX it becomes \ref, so the PDF's numbers come from LaTeX itself and
-- cannot disagree with the page, plus the page number for figures and
-- tables that the reader may have to turn to. A reference to an appendix
-- reads "Appendix A", to anything inside one "Section A.2".
--
-- @chunk:NAME refers to the section in which the chunk NAME is first
-- defined ("Section 5.4"), so that the prose can send the reader to where a
-- piece of the program is explained without naming a section that may move
-- or that explains something else.
--
-- The bibliography is placed before the appendices (before the part that
-- holds them, if one does), under an unnumbered "References" header, as a
-- paper has it.
--
-- The paper alone (IPCTAX_EDITION=paper, the LaTeX of site/paper.pdf): Part
-- I, then its references, then a Div of class "edition-cut" where Part II
-- starts; edition.lua drops the cut and everything after it, once chunks.lua
-- has seen the whole program (so that every number and label is the
-- book's). Everything is still numbered over the whole book, so a section
-- keeps its number; a reference to a section beyond Part I reads "Section
-- 10 of the book" and opens book.pdf there (\IpctaxBookLink,
-- paper/latex/preamble.tex). A figure or table beyond Part I cannot be cited
-- from the paper, which must hold everything it shows: that stops the weave.

local KINDS = {fig = "Figure", tbl = "Table", sec = "Section", chunk = "Section"}
local numbers = {}      -- id -> "3", "3.2", "A", "A.1"
local kinds = {}        -- id -> "Figure", "Table", "Section", "Appendix"
local targets = {}      -- chunk:NAME -> the id of the section it is defined in
local unresolved = {}
local part_of = {}      -- id -> the part it is in (1 for Part I; 0 before any part)
local citing_part = 0   -- the part of the reference being resolved
local is_latex = FORMAT:match("latex") ~= nil
local paper_only = is_latex and os.getenv("IPCTAX_EDITION") == "paper"

local function kind_of(id) return id:match("^(%a+):") end

local function is_appendix_title(h)
  return h.level == 1 and (h.classes:includes("appendix")
    or pandoc.utils.stringify(h.content):match("^Appendix") ~= nil)
end

-- "Appendix: the tangler" -> "The tangler"; a bare "Appendix" is kept.
local function strip_appendix_word(inlines)
  local first = inlines[1]
  if not (first and first.t == "Str") then return inlines end
  local rest = first.text:match("^Appendix[:.]?(.*)$")
  if rest == nil then return inlines end
  local out = pandoc.List()
  if rest ~= "" then out:insert(pandoc.Str(rest)) end
  for i = 2, #inlines do out:insert(inlines[i]) end
  while out[1] and (out[1].t == "Space" or out[1].t == "SoftBreak") do out:remove(1) end
  if #out == 0 then return inlines end
  if out[1].t == "Str" then
    out[1] = pandoc.Str(out[1].text:gsub("^%l", string.upper))
  end
  return out
end

local function letter(n)
  local s = ""
  while n > 0 do
    local r = (n - 1) % 26
    s = string.char(65 + r) .. s
    n = (n - 1 - r) // 26
  end
  return s
end

local ROMAN = {{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
               {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}}

local function roman(n)
  local s = ""
  for _, p in ipairs(ROMAN) do
    while n >= p[1] do s = s .. p[2]; n = n - p[1] end
  end
  return s
end

local function from_roman(s)
  for n = 1, 50 do if roman(n) == s then return n end end
  return nil
end

-- The LaTeX that turns the rest of the document into appendices whose
-- headings read "Appendix A  Title".
local LATEX_APPENDIX = [[
\appendix
\makeatletter
\def\ipctax@appendix@section{}
\renewcommand\@seccntformat[1]{%
  \ifcsname ipctax@appendix@#1\endcsname\appendixname~\fi\csname the#1\endcsname\quad}
\makeatother]]

-- "Part II: The program" -> 2, "The program" (inlines); nil, inlines
-- when the title carries no numeral.
local function part_title(inlines)
  local first = inlines[1]
  local n = nil
  local rest = pandoc.List(inlines)
  if first and first.t == "Str" and first.text == "Part" and inlines[2]
     and inlines[2].t == "Space" and inlines[3] and inlines[3].t == "Str" then
    local numeral, tail = inlines[3].text:match("^([IVXLC]+)[:.]?(.*)$")
    if numeral and from_roman(numeral) then
      n = from_roman(numeral)
      rest = pandoc.List()
      if tail ~= "" then rest:insert(pandoc.Str(tail)) end
      for i = 4, #inlines do rest:insert(inlines[i]) end
      while rest[1] and (rest[1].t == "Space" or rest[1].t == "SoftBreak") do rest:remove(1) end
    end
  end
  return n, rest
end

local parts_seen = 0

-- A part heading, for either writer.
local function render_part(h)
  local n, title = part_title(h.content)
  parts_seen = n or (parts_seen + 1)
  if is_latex then
    local tex = pandoc.write(pandoc.Pandoc({pandoc.Plain(title)}), "latex"):gsub("%s+$", "")
    -- The paper is Part I alone: its heading would only start a page.
    local command = paper_only and "\\IpctaxPaperPart{" or "\\IpctaxPart{"
    return pandoc.RawBlock("latex", command .. parts_seen .. "}{" .. tex .. "}"
      .. (h.identifier ~= "" and ("\\label{" .. h.identifier .. "}") or ""))
  end
  h.classes:insert("unnumbered")
  h.attributes["number"] = nil
  h.content = {pandoc.Span({pandoc.Str("Part"), pandoc.Space(), pandoc.Str(roman(parts_seen))},
                           pandoc.Attr("", {"part-label"})),
               pandoc.Space(),
               pandoc.Span(title, pandoc.Attr("", {"part-title"}))}
  return h
end

local function is_part(b)
  return b.t == "Header" and b.level == 1 and b.classes:includes("part")
end

-- Numbers every header, letters the appendices, and notes in which section
-- each chunk is first defined.
local function number_sections(blocks)
  local counters = {0, 0, 0, 0, 0, 0}
  local appendix_base = nil     -- level-1 count before the first appendix
  local appendix_next = false   -- a part marked .appendix was seen
  local current = nil           -- the id of the innermost numbered header
  local part = 0
  return pandoc.walk_block(pandoc.Div(blocks), {
    Header = function(h)
      if is_part(h) then
        part = part + 1
        if h.classes:includes("appendix") then appendix_next = true end
        return nil
      end
      if h.classes:includes("unnumbered") then return nil end
      if appendix_base == nil and (is_appendix_title(h) or (appendix_next and h.level == 1)) then
        appendix_base = counters[1]
      end
      counters[h.level] = counters[h.level] + 1
      for l = h.level + 1, 6 do counters[l] = 0 end
      local parts = {}
      for l = 1, h.level do parts[#parts + 1] = tostring(counters[l]) end
      if appendix_base then
        parts[1] = letter(counters[1] - appendix_base)
        if h.level == 1 then
          h.content = strip_appendix_word(h.content)
          if not h.classes:includes("appendix") then h.classes:insert("appendix") end
        end
      end
      local number = table.concat(parts, ".")
      if not is_latex then h.attributes["number"] = number end
      if h.identifier ~= "" then
        part_of[h.identifier] = part
        numbers[h.identifier] = number
        kinds[h.identifier] = (appendix_base and h.level == 1) and "Appendix" or "Section"
        current = h.identifier
      end
      return h
    end,
    CodeBlock = function(b)
      local name = b.attributes["file"] or (b.identifier ~= "" and b.identifier) or nil
      if name and current and not targets["chunk:" .. name] then
        targets["chunk:" .. name] = current
      end
      return nil
    end,
  }).content
end

local function is_figure(para)
  return para.t == "Para" and #para.content == 1 and para.content[1].t == "Image"
    and para.content[1].identifier:match("^fig:")
end

local function number_floats(blocks)
  local n_fig, n_tbl, part = 0, 0, 0
  pandoc.walk_block(pandoc.Div(blocks), {
    Header = function(h)
      if is_part(h) then part = part + 1 end
    end,
    Para = function(p)
      if is_figure(p) then
        n_fig = n_fig + 1
        numbers[p.content[1].identifier] = tostring(n_fig)
        kinds[p.content[1].identifier] = "Figure"
        part_of[p.content[1].identifier] = part
      end
    end,
    Div = function(d)
      if d.identifier:match("^tbl:") then
        n_tbl = n_tbl + 1
        numbers[d.identifier] = tostring(n_tbl)
        kinds[d.identifier] = "Table"
        part_of[d.identifier] = part
      end
    end,
  })
end

-- "Figure 3: " before a caption in HTML; a \label inside it in LaTeX.
local function label_caption(inlines, id)
  local kind = kinds[id]
  if is_latex then
    if kind_of(id) == "tbl" then
      inlines:insert(pandoc.RawInline("latex", "\\label{" .. id .. "}"))
    end
    return inlines
  end
  inlines:insert(1, pandoc.Span({pandoc.Str(kind .. " " .. numbers[id] .. ":")},
                                pandoc.Attr("", {"float-number"})))
  inlines:insert(2, pandoc.Space())
  return inlines
end

local function Para(p)
  if not is_figure(p) then return nil end
  local img = p.content[1]
  img.caption = label_caption(img.caption, img.identifier)
  return p
end

-- HTML: a table's caption goes above the table, outside the box that
-- scrolls a wide table sideways, so it stays in the column; the table is
-- labelled by it for assistive technology.
local function html_table(tbl, caption, id)
  local out = pandoc.List()
  local caption_id = id ~= "" and (id .. "-caption") or ""
  if caption and #caption > 0 then
    out:insert(pandoc.Div({pandoc.Plain(caption)}, pandoc.Attr(caption_id, {"table-caption"})))
    if caption_id ~= "" then tbl.attr.attributes["aria-labelledby"] = caption_id end
  end
  tbl.caption.long = {}
  tbl.attr.classes:insert("in-scroll")
  out:insert(pandoc.RawBlock("html", '<div class="table-scroll">'))
  out:insert(tbl)
  out:insert(pandoc.RawBlock("html", "</div>"))
  return out
end

local function Div(d)
  if not d.identifier:match("^tbl:") then return nil end
  local tbl = d.content[1]
  if tbl and tbl.t == "Table" then
    local caption = tbl.caption.long[1] and tbl.caption.long[1].content or pandoc.List()
    caption = label_caption(caption, d.identifier)
    if is_latex then
      tbl.caption.long = {pandoc.Plain(caption)}
    else
      local rest = pandoc.List()
      for i = 2, #d.content do rest:insert(d.content[i]) end
      d.content = html_table(tbl, caption, d.identifier)
      d.content:extend(rest)
      d.classes:insert("table")
    end
  end
  return d
end

-- HTML: a table that is not numbered scrolls in its own box too.
local function Table(t)
  if is_latex or t.attr.classes:includes("in-scroll") then return nil end
  local caption = t.caption.long[1] and t.caption.long[1].content or nil
  return pandoc.Div(html_table(t, caption, ""), pandoc.Attr("", {"table"}))
end

local function reference(citation)
  local id = citation.id
  local target = id
  if kind_of(id) == "chunk" then target = targets[id] end
  local kind = target and kinds[target]
  if not KINDS[kind_of(id)] or not target or not numbers[target] then
    unresolved[#unresolved + 1] = id
    return {pandoc.Str("??" .. id .. "??")}
  end
  local bare = citation.mode == "SuppressAuthor"
  if paper_only and (part_of[target] or 0) > 1 then
    if (kind == "Figure" or kind == "Table") and citing_part <= 1 then
      unresolved[#unresolved + 1] = id .. " (the paper cites it, but it is not in Part I)"
      return {pandoc.Str("??" .. id .. "??")}
    end
    local text = bare and numbers[target] or (kind .. "~" .. numbers[target])
    return {pandoc.RawInline("latex", "\\IpctaxBookLink{" .. target .. "}{" .. text .. "}"
                                      .. (bare and "" or " of the book"))}
  end
  if is_latex then
    local text = (bare and "" or kind .. "~") .. "\\ref{" .. target .. "}"
    if kind == "Figure" or kind == "Table" then
      text = text .. " (p.~\\pageref{" .. target .. "})"
    end
    return {pandoc.RawInline("latex", text)}
  end
  local text = bare and numbers[target] or (kind .. "\u{a0}" .. numbers[target])
  return {pandoc.Link({pandoc.Str(text)}, "#" .. target, "", pandoc.Attr("", {"xref"}))}
end

local function is_crossref(c)
  return KINDS[kind_of(c.citations[1].id) or ""] ~= nil
end

local function Cite(c)
  if not is_crossref(c) then return nil end
  local out = pandoc.List()
  for i, citation in ipairs(c.citations) do
    if i > 1 then out:insert(pandoc.Str(",")); out:insert(pandoc.Space()) end
    out:extend(reference(citation))
  end
  return out
end

-- The bibliography goes before the appendices (before the part that holds
-- them, if there is one) or at the end, and in LaTeX \appendix goes right
-- after it. Part headings are rendered here, after every number is known.
local function place_references(blocks)
  local cites, has_refs = false, false
  pandoc.walk_block(pandoc.Div(blocks), {
    Cite = function(c) if not is_crossref(c) then cites = true end end,
    Div = function(d) if d.identifier == "refs" then has_refs = true end end,
  })
  local tail = pandoc.List()
  if cites and not has_refs then
    tail:insert(pandoc.Header(1, {pandoc.Str("References")},
                              pandoc.Attr("bibliography", {"unnumbered"})))
    tail:insert(pandoc.Div({}, pandoc.Attr("refs")))
  end
  local out = pandoc.List()
  local placed = false
  local parts = 0
  for _, b in ipairs(blocks) do
    local starts_appendices = b.t == "Header" and b.level == 1
      and b.classes:includes("appendix")
    if is_part(b) then parts = parts + 1 end
    if paper_only and parts == 2 and is_part(b) then
      if not placed then out:extend(tail) end
      out:insert(pandoc.Div({}, pandoc.Attr("", {"edition-cut"})))
      placed = true
    end
    if not placed and starts_appendices then
      out:extend(tail)
      if is_latex then out:insert(pandoc.RawBlock("latex", LATEX_APPENDIX)) end
      placed = true
    end
    out:insert(is_part(b) and render_part(b) or b)
  end
  if not placed then out:extend(tail) end
  return out
end

local function Pandoc(doc)
  local blocks = number_sections(doc.blocks)
  number_floats(blocks)
  -- One top-level block at a time, so that the part each reference sits in
  -- is known (a walk visits every inline before any block).
  local walked = pandoc.List()
  for _, b in ipairs(blocks) do
    if is_part(b) then citing_part = citing_part + 1 end
    walked:extend(pandoc.walk_block(pandoc.Div({b}), {Para = Para, Div = Div, Cite = Cite}).content)
  end
  blocks = walked
  if not is_latex then
    blocks = pandoc.walk_block(pandoc.Div(blocks), {Table = Table}).content
  end
  if #unresolved > 0 then
    error("crossref.lua: unresolved references: " .. table.concat(unresolved, ", "))
  end
  return pandoc.Pandoc(place_references(blocks), doc.meta)
end

return {{Pandoc = Pandoc}}

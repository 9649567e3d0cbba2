-- crossref.lua: numbers figures, tables and sections, and resolves
-- @fig:id, @tbl:id and @sec:id (or [-@sec:id] for the bare number).
--
-- Sections are numbered 1, 1.1, ... until the first top-level header whose
-- text starts with "Appendix"; from there on, top-level sections are
-- appendices, lettered A, B, ... (subsections A.1, ...), and the word
-- "Appendix:" leaves the title because the number now says it. The numbers
-- are computed here once and given to both writers: in HTML as each
-- header's "number" attribute, which pandoc's --number-sections prints as is;
-- in LaTeX by \appendix before the first appendix, so that LaTeX's own
-- counters print the same letters.
--
-- In HTML every reference becomes a link whose text is "Figure 3" (or "3");
-- in LaTeX it becomes \ref, so the PDF's numbers come from LaTeX itself and
-- cannot disagree with the page, plus the page number for figures and
-- tables that the reader may have to turn to. A reference to an appendix
-- reads "Appendix A", to anything inside one "Section A.2".
--
-- The bibliography is placed before the appendices, under an unnumbered
-- "References" header, as a paper has it.

local KINDS = {fig = "Figure", tbl = "Table", sec = "Section"}
local numbers = {}      -- id -> "3", "3.2", "A", "A.1"
local kinds = {}        -- id -> "Figure", "Table", "Section", "Appendix"
local unresolved = {}
local is_latex = FORMAT:match("latex") ~= nil

local function kind_of(id) return id:match("^(%a+):") end

local function is_appendix_title(h)
  return h.level == 1 and pandoc.utils.stringify(h.content):match("^Appendix") ~= nil
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

-- The LaTeX that turns the rest of the document into appendices whose
-- headings read "Appendix A  Title".
local LATEX_APPENDIX = [[
\appendix
\makeatletter
\def\ipctax@appendix@section{}
\renewcommand\@seccntformat[1]{%
  \ifcsname ipctax@appendix@#1\endcsname\appendixname~\fi\csname the#1\endcsname\quad}
\makeatother]]

-- Numbers every header and letters the appendices.
local function number_sections(blocks)
  local counters = {0, 0, 0, 0, 0, 0}
  local appendix_base = nil     -- level-1 count before the first appendix
  return pandoc.walk_block(pandoc.Div(blocks), {
    Header = function(h)
      if h.classes:includes("unnumbered") then return nil end
      if appendix_base == nil and is_appendix_title(h) then appendix_base = counters[1] end
      counters[h.level] = counters[h.level] + 1
      for l = h.level + 1, 6 do counters[l] = 0 end
      local parts = {}
      for l = 1, h.level do parts[#parts + 1] = tostring(counters[l]) end
      if appendix_base then
        parts[1] = letter(counters[1] - appendix_base)
        if h.level == 1 then
          h.content = strip_appendix_word(h.content)
          h.classes:insert("appendix")
        end
      end
      local number = table.concat(parts, ".")
      if not is_latex then h.attributes["number"] = number end
      if h.identifier ~= "" then
        numbers[h.identifier] = number
        kinds[h.identifier] = (appendix_base and h.level == 1) and "Appendix" or "Section"
      end
      return h
    end,
  }).content
end

local function is_figure(para)
  return para.t == "Para" and #para.content == 1 and para.content[1].t == "Image"
    and para.content[1].identifier:match("^fig:")
end

local function number_floats(blocks)
  local n_fig, n_tbl = 0, 0
  pandoc.walk_block(pandoc.Div(blocks), {
    Para = function(p)
      if is_figure(p) then
        n_fig = n_fig + 1
        numbers[p.content[1].identifier] = tostring(n_fig)
        kinds[p.content[1].identifier] = "Figure"
      end
    end,
    Div = function(d)
      if d.identifier:match("^tbl:") then
        n_tbl = n_tbl + 1
        numbers[d.identifier] = tostring(n_tbl)
        kinds[d.identifier] = "Table"
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

local function Div(d)
  if not d.identifier:match("^tbl:") then return nil end
  local tbl = d.content[1]
  if tbl and tbl.t == "Table" then
    local caption = tbl.caption.long[1] and tbl.caption.long[1].content or pandoc.List()
    caption = label_caption(caption, d.identifier)
    tbl.caption.long = {pandoc.Plain(caption)}
  end
  return d
end

local function reference(citation)
  local id = citation.id
  local kind = kinds[id]
  if not KINDS[kind_of(id)] or not numbers[id] then
    unresolved[#unresolved + 1] = id
    return {pandoc.Str("??" .. id .. "??")}
  end
  local bare = citation.mode == "SuppressAuthor"
  if is_latex then
    local text = (bare and "" or kind .. "~") .. "\\ref{" .. id .. "}"
    if kind == "Figure" or kind == "Table" then
      text = text .. " (p.~\\pageref{" .. id .. "})"
    end
    return {pandoc.RawInline("latex", text)}
  end
  local text = bare and numbers[id] or (kind .. " " .. numbers[id])
  return {pandoc.Link({pandoc.Str(text)}, "#" .. id, "", pandoc.Attr("", {"xref"}))}
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

-- The bibliography goes before the appendices (or at the end), and in
-- LaTeX \appendix goes right after it.
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
  for _, b in ipairs(blocks) do
    if not placed and b.t == "Header" and b.classes:includes("appendix") then
      out:extend(tail)
      if is_latex then out:insert(pandoc.RawBlock("latex", LATEX_APPENDIX)) end
      placed = true
    end
    out:insert(b)
  end
  if not placed then out:extend(tail) end
  return out
end

local function Pandoc(doc)
  local blocks = number_sections(doc.blocks)
  number_floats(blocks)
  blocks = pandoc.walk_block(pandoc.Div(blocks), {Para = Para, Div = Div, Cite = Cite}).content
  if #unresolved > 0 then
    error("crossref.lua: unresolved references: " .. table.concat(unresolved, ", "))
  end
  return pandoc.Pandoc(place_references(blocks), doc.meta)
end

return {{Pandoc = Pandoc}}

-- crossref.lua: numbers figures, tables and sections, and resolves
-- @fig:id, @tbl:id and @sec:id (or [-@sec:id] for the bare number).
--
-- Sections are numbered as pandoc's --number-sections numbers them.
-- In HTML every reference becomes a link whose text is "Figure 3" (or "3");
-- in LaTeX it becomes \ref, so the PDF's numbers come from LaTeX itself and
-- cannot disagree with the page, plus the page number for figures and
-- tables that the reader may have to turn to.

local KINDS = {fig = "Figure", tbl = "Table", sec = "Section"}
local numbers = {}
local unresolved = {}
local is_latex = FORMAT:match("latex") ~= nil

local function kind_of(id) return id:match("^(%a+):") end

local function number_sections(blocks)
  local counters = {0, 0, 0, 0, 0, 0}
  pandoc.walk_block(pandoc.Div(blocks), {
    Header = function(h)
      if h.classes:includes("unnumbered") then return nil end
      counters[h.level] = counters[h.level] + 1
      for l = h.level + 1, 6 do counters[l] = 0 end
      local parts = {}
      for l = 1, h.level do parts[#parts + 1] = tostring(counters[l]) end
      if h.identifier ~= "" then numbers[h.identifier] = table.concat(parts, ".") end
    end,
  })
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
      end
    end,
    Div = function(d)
      if d.identifier:match("^tbl:") then
        n_tbl = n_tbl + 1
        numbers[d.identifier] = tostring(n_tbl)
      end
    end,
  })
end

-- "Figure 3: " before a caption in HTML; a \label inside it in LaTeX.
local function label_caption(inlines, id)
  local kind = KINDS[kind_of(id)]
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
  local kind = KINDS[kind_of(id)]
  if not kind or not numbers[id] then
    unresolved[#unresolved + 1] = id
    return {pandoc.Str("??" .. id .. "??")}
  end
  local bare = citation.mode == "SuppressAuthor"
  if is_latex then
    local text = (bare and "" or kind .. "~") .. "\\ref{" .. id .. "}"
    if kind ~= "Section" then text = text .. " (p.~\\pageref{" .. id .. "})" end
    return {pandoc.RawInline("latex", text)}
  end
  local text = bare and numbers[id] or (kind .. " " .. numbers[id])
  return {pandoc.Link({pandoc.Str(text)}, "#" .. id, "", pandoc.Attr("", {"xref"}))}
end

local function Cite(c)
  if not KINDS[kind_of(c.citations[1].id) or ""] then return nil end
  local out = pandoc.List()
  for i, citation in ipairs(c.citations) do
    if i > 1 then out:insert(pandoc.Str(",")); out:insert(pandoc.Space()) end
    out:extend(reference(citation))
  end
  return out
end

local function Pandoc(doc)
  number_sections(doc.blocks)
  number_floats(doc.blocks)
  local blocks = pandoc.walk_block(pandoc.Div(doc.blocks),
                                   {Para = Para, Div = Div, Cite = Cite}).content
  if #unresolved > 0 then
    error("crossref.lua: unresolved references: " .. table.concat(unresolved, ", "))
  end
  return pandoc.Pandoc(blocks, doc.meta)
end

return {{Pandoc = Pandoc}}

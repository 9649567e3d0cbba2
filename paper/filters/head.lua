-- head.lua: what goes into the page's <head> once every value is filled.
-- It runs after values.lua (reader.lua, which writes the other citation_*
-- tags, runs before it, so it would see the abstract's placeholder keys).
--
--  * citation_abstract and description: the abstract as plain text, with
--    its numbers, as the reader sees it.

if not FORMAT:match("html") then return {} end

local function html_escape(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

local BLOCK = {Para = true, Plain = true, Div = true, BlockQuote = true, BulletList = true,
               OrderedList = true, Header = true, LineBlock = true}

-- Plain text of a metadata value; blocks (paragraphs) are joined by a space.
local function plain(v)
  if v == nil then return nil end
  local parts = {}
  if type(v) == "table" and v[1] and BLOCK[v[1].t] then
    for _, b in ipairs(v) do parts[#parts + 1] = pandoc.utils.stringify(b) end
  else
    parts[1] = pandoc.utils.stringify(v)
  end
  local s = table.concat(parts, " "):gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  if s == "" then return nil end
  return s
end

function Pandoc(doc)
  local abstract = plain(doc.meta["abstract"])
  if not abstract then return nil end
  local head = doc.meta["header-includes"]
  local list = pandoc.List()
  -- a list of values (reader.lua's tags) or one value (a block, inlines)
  if head then
    if type(head) == "table" and head[1] ~= nil and head[1].t == nil then
      for _, h in ipairs(head) do list:insert(h) end
    else
      list:insert(head)
    end
  end
  for _, name in ipairs({"citation_abstract", "description"}) do
    list:insert(pandoc.MetaBlocks({pandoc.RawBlock("html",
      '<meta name="' .. name .. '" content="' .. html_escape(abstract) .. '" />')}))
  end
  doc.meta["header-includes"] = pandoc.MetaList(list)
  return doc
end

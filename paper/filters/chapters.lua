-- chapters.lua: the book's chapters, each read on its own, as one document.
--
-- pandoc 2.17's Markdown reader takes time and memory that grow much faster
-- than the text: the 37 chapters read as one document took about a minute
-- and over 3 GB at their peak, while each read alone took at most half a
-- second. So the Makefile reads each chapter into a JSON file of its own
-- (build/woven/ast/, remade only when its chapter changes), and this filter,
-- the first of every weave, puts their blocks in chapter order ahead of the
-- document pandoc was given (the metadata, and any extra chapter a test
-- adds). $IPCTAX_CHAPTER_ASTS lists the files, separated by spaces.
--
-- The result is the document the whole reading gave, element for element,
-- once two things a reader counts across the whole text are counted the
-- same way here:
--
--  * Citations are numbered through the document (citationNoteNum): each
--    chapter's numbers continue from the last one before it.
--  * Header identifiers are unique in the document: a header whose
--    identifier an earlier chapter already used gets the first "-N" that is
--    free, the rule pandoc applies inside one document. Where that "-N" is
--    itself a header identifier later in the book (a chapter that holds two
--    such headers, say), the two readings could differ, and the weave stops
--    and asks for an explicit identifier instead.

local function read_chapter(path)
  local f = io.open(path, "r")
  if f == nil then
    error("chapters.lua: cannot read " .. path .. " (run through make)")
  end
  local text = f:read("a")
  f:close()
  return pandoc.read(text, "json")
end

-- later[i]: every header identifier of chapter i and the chapters after it.
local function identifiers_from_each(chapters)
  local later, union = {}, {}
  for i = #chapters, 1, -1 do
    chapters[i]:walk{Header = function(h) union[h.identifier] = true end}
    later[i] = {}
    for id in pairs(union) do
      later[i][id] = true
    end
  end
  return later
end

local function free_identifier(id, seen, later, path)
  local n = 1
  while seen[id .. "-" .. n] do
    n = n + 1
  end
  local new = id .. "-" .. n
  if later[new] then
    error(string.format("chapters.lua: %s: the header \"%s\" repeats an earlier " ..
      "chapter's, and \"%s\" is taken later in the book; give one of them an " ..
      "explicit {#identifier}", path, id, new))
  end
  return new
end

function Pandoc(doc)
  local paths = pandoc.List()
  for path in (os.getenv("IPCTAX_CHAPTER_ASTS") or ""):gmatch("%S+") do
    paths:insert(path)
  end
  if #paths == 0 then
    return nil
  end
  local chapters = paths:map(read_chapter)
  local later = identifiers_from_each(chapters)
  local blocks, seen, last_note = pandoc.List(), {}, 0
  for i, chapter in ipairs(chapters) do
    local offset = last_note
    chapter = chapter:walk{
      Cite = function(c)
        for _, citation in ipairs(c.citations) do
          citation.note_num = citation.note_num + offset
          last_note = math.max(last_note, citation.note_num)
        end
        return c
      end,
      Header = function(h)
        if h.identifier ~= "" and seen[h.identifier] then
          h.identifier = free_identifier(h.identifier, seen, later[i], paths[i])
        end
        seen[h.identifier] = true
        return h
      end,
    }
    blocks:extend(chapter.blocks)
  end
  blocks:extend(doc.blocks)
  doc.blocks = blocks
  return doc
end

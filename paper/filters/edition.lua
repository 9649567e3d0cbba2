-- edition.lua: which part of the book a rendering holds.
--
-- IPCTAX_EDITION=paper (site/paper.pdf): Part I with its references, the
-- paper a reviewer reads on its own; crossref.lua has marked where Part II
-- starts with a Div of class "edition-cut", and everything from there on is
-- dropped here. It runs after chunks.lua, which has seen the whole program
-- by then, so the paper's numbers link to the chunks of the book by the
-- book's anchors and labels, and before --citeproc, so the paper's
-- references are the works Part I cites. Any other edition (the default,
-- "book": the page and site/book.pdf) keeps everything.
--
-- The paper is also counted: the words of its prose (the abstract, the
-- headings, the paragraphs and lists) apart from its tables, its figures
-- and their captions, as the number a reviewer's sitting is measured by.
-- The count goes to IPCTAX_WOVEN/paper-words.txt, which the Makefile
-- holds to PAPER_MAX_WORDS. A word is a run of text between spaces; a
-- number with its interval, glued by no-break spaces, counts as what
-- the eye reads, its pieces.

local function words_of(el)
  local n = 0
  pandoc.walk_block(pandoc.Div(el), {
    Str = function(s)
      for _ in s.text:gsub("\u{a0}", " "):gmatch("%S+") do n = n + 1 end
    end,
    Code = function(c) n = n + 1 end,
    Math = function(m) n = n + 1 end,
  })
  return n
end

local function prose_words(blocks)
  local n = 0
  for _, b in ipairs(blocks) do
    if b.t == "Para" or b.t == "Plain" or b.t == "Header" or b.t == "LineBlock" then
      -- a figure (a paragraph of one image) is its caption: not prose
      local figure = #b.content == 1 and b.content[1].t == "Image"
      if not figure then n = n + words_of({b}) end
    elseif b.t == "BulletList" or b.t == "OrderedList" then
      for _, item in ipairs(b.content) do n = n + prose_words(item) end
    elseif b.t == "BlockQuote" then
      n = n + prose_words(b.content)
    elseif b.t == "Div" and not b.classes:includes("datatable") then
      n = n + prose_words(b.content)
    end
  end
  return n
end

local function write_count(doc)
  local woven = os.getenv("IPCTAX_WOVEN")
  if not woven then return end
  local n = prose_words(doc.blocks)
  local abstract = doc.meta.abstract
  if abstract and abstract.t == "MetaBlocks" then n = n + prose_words(abstract) end
  local f = io.open(woven .. "/paper-words.txt", "w")
  if not f then error("edition.lua: cannot write " .. woven .. "/paper-words.txt") end
  f:write(n, "\n")
  f:close()
end

local function Pandoc(doc)
  for i, b in ipairs(doc.blocks) do
    if b.t == "Div" and b.classes:includes("edition-cut") then
      local kept = pandoc.List()
      for j = 1, i - 1 do kept:insert(doc.blocks[j]) end
      local paper = pandoc.Pandoc(kept, doc.meta)
      write_count(paper)
      return paper
    end
  end
  return nil
end

return {{Pandoc = Pandoc}}

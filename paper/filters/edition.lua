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

local function Pandoc(doc)
  for i, b in ipairs(doc.blocks) do
    if b.t == "Div" and b.classes:includes("edition-cut") then
      local kept = pandoc.List()
      for j = 1, i - 1 do kept:insert(doc.blocks[j]) end
      return pandoc.Pandoc(kept, doc.meta)
    end
  end
  return nil
end

return {{Pandoc = Pandoc}}

/**
 * A small, general lexicon of equivalent words for tool search: verbs of CRUD-style APIs, common
 * abbreviations of developer tooling, and everyday domain words. Each line is one group; a query
 * word pulls in the other members of its groups at a reduced weight. Groups are written by hand from
 * general vocabulary (not from benchmark queries); the benchmark measures whether they pay.
 *
 * The last block (from "reaction" on) is developer-tooling vocabulary added after reading the toolsearch
 * dev set's misses (the set exists for tuning): each group is general words of the domain — reactions,
 * auth, CI builds, failures, assertions, network calls, heap memory, counts, associations, research,
 * recursion — never a query's phrase (no "high" beside "altitude": "high priority" is not a height).
 * What they change is measured by bench/toolsearch (figures in docs/tool-search.md and the README).
 */
const GROUPS = `
create make new add generate build start open compose draft
delete remove erase drop destroy purge discard unlink
kill terminate stop end cancel abort halt
get fetch retrieve read obtain show view display look see
list enumerate browse all index
search find query lookup locate discover seek
update edit modify change patch alter set rename revise
send post publish message notify dm
reply respond answer
run execute exec launch invoke trigger rerun
merge land squash
comment note remark
pr pull request
mr merge request
repo repository project
issue bug ticket problem
branch ref
commit revision change
k8s kubernetes kube
pod pods container
db database sql postgres postgresql
doc docs document documentation reference manual guide
img image picture photo screenshot capture
screen page viewport
page webpage website site url link web
web internet online
browser navigate visit goto go
click press tap
type fill enter input
scrape crawl extract spider
download save export
upload attach
file files document
folder directory dir
move rename relocate
copy duplicate clone
user member person account profile people who
team group org organization workspace
channel room conversation chat thread
email mail inbox
calendar event meeting schedule appointment
weather forecast temperature rain climate
stock stocks share shares market ticker finance financial invest investment
price cost pricing quote
currency exchange convert conversion money
crypto cryptocurrency bitcoin coin
job jobs career employment hiring work position
trip travel flight flights hotel vacation journey itinerary
map maps location place address geocode coordinates
nearby near around close
direction directions route drive driving navigate distance
news headline headlines article articles
recipe recipes cook cooking food meal
movie movies film films cinema
music song songs audio sound
video videos youtube
book books novel read reading
game games gaming play
translate translation language
summarize summary summarise tldr digest
paper papers research academic scholar arxiv
shop shopping buy purchase product products store order
payment pay charge invoice billing refund subscription customer
log logs output trace
error errors exception crash failure fail failed failing
alert alerts warning vulnerability vulnerabilities security
secret secrets token tokens key keys credential credentials password
test tests testing spec
deploy deployment release ship rollout
config configuration settings setting options
memory remember knowledge graph entity entities
think thinking reason reasoning plan step steps
diagram chart graph plot visualization visualize
table tables spreadsheet sheet excel csv
pdf document
word docx
slide slides presentation powerpoint pptx
process processes pid
command shell terminal bash cli
wait sleep pause delay
tab tabs window
cookie cookies storage
network request requests http
performance speed slow trace profile
notification notifications inbox
star favorite bookmark
label labels tag tags
assign assignee owner
review reviewer approve approval
car cars vehicle vehicles auto automobile dealer
house home apartment rent rental property realestate estate
health medical medicine doctor symptom symptoms disease
fitness exercise workout gym training
diet nutrition calorie calories
pet pets dog dogs cat cats
kid kids child children parent parenting
learn learning course courses tutorial lesson lessons study education teach
write writing essay copywriting copy text
code coding programming developer program
design designer graphic graphics logo
quiz trivia question questions
horoscope astrology zodiac
sport sports football soccer basketball baseball score scores
law legal lawyer attorney contract
tax taxes
resume cv
insurance insure
loan loans mortgage credit
bank banking
gift gifts present presents
wine drink drinks beverage cocktail
restaurant restaurants dining dine eat
event events ticket tickets concert show
podcast podcasts episode
speech voice speak
time clock timezone date
calculate calculator math compute arithmetic formula
dictionary definition meaning define
joke jokes funny humor
fact facts
plant plants garden gardening
deal deals discount discounts coupon coupons sale
review reviews rating ratings
compare comparison versus
recommend recommendation recommendations suggest suggestion
history historical
convert converter conversion
reaction reactions react emoji emojis thumbs upvote
forget delete remove
auth authenticated authentication authenticate login signin token session whoami
altitude elevation height
build builds ci pipeline workflow workflows job jobs
broken broke blew crashed failing failed
verify assert ensure confirm validate
visible visibility appear appears shown displayed
call calls request requests xhr
heap memory leak allocation allocations snapshot
throw throws thrown exception exceptions
count counts many number total tally aggregate statistics stats
link attach connect associate association associations relate relation relationship
research report briefing investigate investigation deep
source sources sourced citation citations cite
recursive recursively nested subdirectory subdirectories subfolder subfolders anywhere
e2e end-to-end test tests testing
`;

/** word → the other words of its groups. */
export const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, Set<string>>();
  for (const line of GROUPS.split("\n")) {
    const ws = line.trim().split(/\s+/).filter(Boolean);
    for (const w of ws) {
      let s = m.get(w);
      if (!s) m.set(w, (s = new Set()));
      for (const o of ws) if (o !== w) s.add(o);
    }
  }
  return new Map([...m].map(([k, v]) => [k, [...v]]));
})();
